"""Lending idle bandwidth of training jobs' drives to scavengers, driven by forecasts.

forecast          the forecast message vocabulary and its socket client
forecast_server   the forecast socket and the planner tick in ``jbof serve``
planner           forecasts -> scavenger limits
anticipation      training-cluster scenarios evaluated in the simulator
trace             synthetic and recorded job traces, forecasters
"""
