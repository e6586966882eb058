"""What ``jbof serve`` runs next to the Engine (``Services``): the admin socket over
the ``Operations``, and, when configured, the metrics server, the forecast service
and the tuners."""
from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from control.config import Config, ConfigError, forecast_settings, tune_settings
from control.config_export import engine_tenant
from control.daemon.admin import AdminError, AdminServer
from control.daemon.operations import Operations

log = logging.getLogger("jbof.admin")


class Services:
    """What ``jbof serve`` starts next to the Engine: the admin socket and, if
    configured, the metrics server, the forecast service and the tuners.
    ``close()`` stops them (the tuners and the forecast service first: drives
    get their configured knobs and scavengers their configured limits back
    while the Engine still runs)."""

    def __init__(self, engine: Any, cfg: Config, persist_path: str | None,
                 on_shutdown: Callable[[], None], file_cfg: Config | None = None,
                 admin_explicit: bool = True, scrub: Any = None) -> None:
        self.control = Operations(engine, cfg, persist_path, on_shutdown, file_cfg, scrub)
        self.admin: AdminServer | None = None
        self.metrics: Any = None
        self.forecast: Any = None
        self.tune: Any = None
        self._cfg = cfg
        self._forecast_drive = ""
        self._admin_explicit = admin_explicit

    def start(self) -> None:
        """Start the admin socket and metrics; the Engine must be running."""
        cfg = self._cfg
        self.control.pin_sizes()
        self.admin = AdminServer(self.control, cfg.admin_socket, cfg.admin.mode,
                                 cfg.admin.max_connections)
        try:
            self.admin.start()
        except AdminError as e:
            if self._admin_explicit or e.code != "exists":
                raise
            log.warning("%s; serving without an admin socket", e)
            self.admin = None
        if cfg.metrics is not None:
            from control.daemon.metrics import JbofCollector, MetricsServer
            collector = JbofCollector(self.control.engine, lambda: self.control.live_config,
                                      tune=self._samples)
            self.metrics = MetricsServer(collector, cfg.metrics)
            try:
                self.metrics.start()
            except OSError as e:
                self.close()
                raise AdminError("metrics", f"metrics {cfg.metrics}: {e.strerror or e}") from None
            self.control.metrics_url = self.metrics.url
            log.info("metrics on %s", self.metrics.url)
        fcfg = forecast_settings(cfg)
        if fcfg is not None:
            self._start_forecast(fcfg)
        tcfg = tune_settings(cfg)
        if tcfg is not None:
            self._start_tune(tcfg)

    def _samples(self) -> list[tuple[str, dict[str, str], float]]:
        """The tuners' and the planner's metric samples (jbof_tune_*, jbof_planner_*)."""
        out = []
        svc, fc = self.tune, self.forecast
        if svc is not None:
            out += svc.metric_samples()
        if fc is not None:
            out += fc.metric_samples(self._forecast_drive)
        return out

    def _start_tune(self, tcfg: Mapping[str, Any]) -> None:
        """One tuner thread per drive (control/tune/autotune_live.py); trials go through
        Operations.set_tuned_fields (not persisted)."""
        from control.tune.autotune_live import TuneService
        try:
            self.tune = TuneService(self.control, tcfg)
        except ConfigError as e:        # the index file: one line naming it
            self.close()
            raise AdminError("tune", str(e)) from None
        self.control.tune = self.tune
        self.control.on_drive_change = self.tune.drive_changed
        self.tune.start()

    def _start_forecast(self, fcfg: Mapping[str, Any]) -> None:
        """The forecast socket and planner over the tenants of fcfg's drive; the
        planner's limits go through Operations.set_planned_limit (not persisted)."""
        from control.lending.forecast_server import ForecastService
        drive = fcfg["drive"]

        def live_tenants() -> list[dict[str, Any]]:   # the config in force, read per tick
            return [engine_tenant(t) for t in self.control.config.tenants if t.drive == drive]
        tenants = live_tenants()
        owners, borrowers = ForecastService.roles(tenants)
        if not borrowers:
            log.info("forecast: no scavenger tenant on drive %s yet: nothing to lend until "
                     "one is added", fcfg["drive"])
        path = Path(fcfg["socket"])
        try:
            path.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        except OSError as e:
            self.close()
            raise AdminError("forecast", f"forecast socket {path}: cannot create its "
                             f"directory: {e.strerror or e}") from None
        try:
            self.forecast = ForecastService.from_config(
                self.control.engine, fcfg, tenants, apply=self.control.set_planned_limit,
                live_tenants=live_tenants, release=self.control.drop_planned)
        except (OSError, ValueError) as e:   # the message names the socket
            self.close()
            raise AdminError("forecast", str(e)) from None
        self.control.forecast_socket = str(path)
        self._forecast_drive = drive
        self.control.on_tenant_change = self.forecast.poke
        log.info("forecast socket %s (mode %04o): %d owner(s) (%d guarded), %d scavenger(s) "
                 "on drive %s (write fractions measured every tick)", path, fcfg["mode"],
                 len(owners), len(ForecastService.guarded(tenants)), len(borrowers),
                 fcfg["drive"])

    def close(self) -> None:
        if self.tune is not None:
            self.control.on_drive_change = None
            self.tune.stop()            # puts every drive's configured knobs back
            self.tune = self.control.tune = None
        if self.forecast is not None:
            self.control.on_tenant_change = None
            self.forecast.stop()
            self.forecast = None
            self.control.clear_planned()
            self.control.forecast_socket = None
        if self.metrics is not None:
            self.metrics.close()
            self.metrics = None
        if self.admin is not None:
            self.admin.close()
            self.admin = None
        self.control.save_scrub_done()  # before the Engine closes; a no-op once saved

