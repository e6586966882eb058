# JBOF QoS data plane -- build, test, benchmark.
#   make run        side-by-side simulation of the default scenario (the main job)
#   make serve      serve NBD clients on the embedded default config (configs/default.yaml)
#   make test       everything CI runs: C unit tests and the reactor's end-to-end test
#                   (native, ASan+UBSan, aarch64 under qemu) + pytest
#   make bench      simulator speed (simulated IOs per wall second)
#   make bench-sched  instructions per IO under callgrind (whole program and scheduler alone)
#   make bench-qos-overhead  live qos vs fifo: server CPU per IO and IOPS
PYTHON ?= python3
CC ?= gcc
CFLAGS_C := -std=c11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -Icsrc/include
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
ARM_CC ?= aarch64-linux-gnu-gcc
# Core mechanism sources (no IO, no threads): what the C unit tests and the ARM build cover.
CORE_SRCS := csrc/hist.c csrc/cost.c csrc/ctl.c csrc/sched.c csrc/ssd.c csrc/wl.c csrc/sim.c
CORE_SRCS += $(filter-out $(CORE_SRCS),$(wildcard csrc/nbd_codec.c))
# The whole data plane (reactor, codec, every backend): what the reactor's end-to-end test links.
ALL_SRCS := $(sort $(wildcard csrc/*.c))
C_TESTS := $(patsubst tests/c/%.c,%,$(wildcard tests/c/test_*.c))
# io_uring where its headers are (native: liburing-dev; aarch64: liburing-dev:arm64)
URING_NATIVE := $(if $(wildcard /usr/include/liburing.h),-DJBOF_HAVE_URING=1,)
URING_ARM := $(if $(and $(wildcard /usr/include/liburing.h),$(wildcard /usr/lib/aarch64-linux-gnu/liburing.a)),-DJBOF_HAVE_URING=1,)
LIBS_NATIVE := -lpthread $(if $(URING_NATIVE),-luring,) -lm
LIBS_ARM := -lpthread $(if $(URING_ARM),-luring,) -lm
STAMP := build/.deps-installed

.PHONY: all deps build run serve test test-c test-asan test-arm test-py bench bench-sched bench-nbd bench-qos-overhead bench-anticipation bench-reactors clean

all: build

$(STAMP): pyproject.toml setup.py dataplane/_build.py scripts/install-deps.sh
	bash scripts/install-deps.sh
	@mkdir -p build && touch $@

deps: $(STAMP)

# The cffi extension is rebuilt whenever a C file changes.
# A copy built in place by `python3 dataplane/_build.py` (named for the
# interpreter, not abi3) would be imported ahead of pip's and go stale: remove it.
dataplane/.built: $(STAMP) $(wildcard csrc/*.c csrc/*.h csrc/include/*.h) dataplane/_build.py
	@rm -f dataplane/_jbof.cpython-*.so
	$(PYTHON) -m pip install --no-build-isolation --no-deps -q -e . 2>&1 | grep -v -i "running pip as" || true
	@$(PYTHON) -c "import dataplane._jbof" && touch $@

build: dataplane/.built

run: build
	$(PYTHON) -m control.cli sim configs/scenarios/read-vs-write.yaml --policy fifo,gimbal,qos

serve: build
	$(PYTHON) -m control.cli serve --config configs/default.yaml

# test_reactor: the live engine end to end (all sources, threads, io_uring).
build/c/test_reactor: tests/c/test_reactor.c $(ALL_SRCS) $(wildcard csrc/include/*.h csrc/*.h) tests/c/testing.h
	@mkdir -p build/c
	$(CC) $(CFLAGS_C) -Icsrc $(URING_NATIVE) -o $@ $< $(ALL_SRCS) $(LIBS_NATIVE)

build/asan/test_reactor: tests/c/test_reactor.c $(ALL_SRCS) $(wildcard csrc/include/*.h csrc/*.h) tests/c/testing.h
	@mkdir -p build/asan
	$(CC) $(CFLAGS_C) -O1 $(SAN) -Icsrc $(URING_NATIVE) -o $@ $< $(ALL_SRCS) $(LIBS_NATIVE)

build/arm/test_reactor: tests/c/test_reactor.c $(ALL_SRCS) $(wildcard csrc/include/*.h csrc/*.h) tests/c/testing.h
	@mkdir -p build/arm
	$(ARM_CC) $(CFLAGS_C) -Icsrc $(URING_ARM) -static -o $@ $< $(ALL_SRCS) $(LIBS_ARM)

build/c/%: tests/c/%.c $(CORE_SRCS) $(wildcard csrc/include/*.h) csrc/jbof_internal.h tests/c/testing.h csrc/scrub.c csrc/reactor.h csrc/backend.h
	@mkdir -p build/c
	$(CC) $(CFLAGS_C) -o $@ $< $(CORE_SRCS) -lm

build/asan/%: tests/c/%.c $(CORE_SRCS) $(wildcard csrc/include/*.h) csrc/jbof_internal.h tests/c/testing.h csrc/scrub.c csrc/reactor.h csrc/backend.h
	@mkdir -p build/asan
	$(CC) $(CFLAGS_C) -O1 $(SAN) -o $@ $< $(CORE_SRCS) -lm

build/arm/%: tests/c/%.c $(CORE_SRCS) $(wildcard csrc/include/*.h) csrc/jbof_internal.h tests/c/testing.h csrc/scrub.c csrc/reactor.h csrc/backend.h
	@mkdir -p build/arm
	$(ARM_CC) $(CFLAGS_C) -static -o $@ $< $(CORE_SRCS) -lm

test-c: $(addprefix build/c/,$(C_TESTS))
	@set -e; for t in $^; do echo "== $$t"; ./$$t; done

test-asan: $(addprefix build/asan/,$(C_TESTS))
	@set -e; for t in $^; do echo "== $$t (asan+ubsan)"; ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ./$$t; done

test-arm: $(addprefix build/arm/,$(C_TESTS))
	@set -e; for t in $^; do echo "== $$t (aarch64 under qemu)"; qemu-aarch64 ./$$t; done

test-py: build
	$(PYTHON) -m pytest tests

test: deps test-c test-asan test-arm test-py

build/bench_sched: scripts/bench_sched.c $(CORE_SRCS) $(wildcard csrc/include/*.h) csrc/jbof_internal.h
	@mkdir -p build
	$(CC) $(CFLAGS_C) -o $@ $< $(CORE_SRCS) -lm

# the same with one write in 16 of 1 MiB (section 79's episodes): scripts/bench_sched.py --big
build/bench_sched_big: scripts/bench_sched.c $(CORE_SRCS) $(wildcard csrc/include/*.h) csrc/jbof_internal.h
	@mkdir -p build
	$(CC) $(CFLAGS_C) -DBENCH_BIG=1 -o $@ $< $(CORE_SRCS) -lm

# 12 tenants with an SLO reader and a reservation, two buckets: scripts/bench_sched.py --slo
build/bench_sched_slo: scripts/bench_sched.c $(CORE_SRCS) $(wildcard csrc/include/*.h) csrc/jbof_internal.h
	@mkdir -p build
	$(CC) $(CFLAGS_C) -DBENCH_SLO=1 -o $@ $< $(CORE_SRCS) -lm

# --big's writes beside a latency-bound QD-2 reader, one bucket: scripts/bench_sched.py --bw
build/bench_sched_bw: scripts/bench_sched.c $(CORE_SRCS) $(wildcard csrc/include/*.h) csrc/jbof_internal.h
	@mkdir -p build
	$(CC) $(CFLAGS_C) -DBENCH_BW=1 -o $@ $< $(CORE_SRCS) -lm

bench-sched: build/bench_sched build/bench_sched_big build/bench_sched_slo build/bench_sched_bw
	$(PYTHON) scripts/bench_sched.py
	$(PYTHON) scripts/bench_sched.py --slo

bench: build
	$(PYTHON) scripts/bench_sim.py

bench-nbd: build
	$(PYTHON) scripts/bench_nbd.py

# qos vs fifo on the live server: CPU per IO and IOPS ratios (issue: <= 1.05, >= 0.95)
bench-qos-overhead: build
	$(PYTHON) scripts/bench_qos_overhead.py

# one reactor thread vs two: aggregate 4 KiB randread IOPS over two memory drives
bench-reactors: build
	$(PYTHON) scripts/bench_reactors.py

# lending policies over 20 noisy seeds of the training-cluster scenario
bench-anticipation: build
	$(PYTHON) scripts/bench_anticipation.py --jobs 2

# The qos invariant sweep (not a test: tests/test_qos_sweep.py runs a fixed 50-mix sample).
SWEEP_N ?= 1000
SWEEP_SEED ?= 1
.PHONY: sweep
sweep: build
	$(PYTHON) scripts/qos_sweep.py -n $(SWEEP_N) --seed $(SWEEP_SEED) --jobs 2 --out build/sweep-failures

clean:
	rm -rf build dataplane/_jbof*.so dataplane/.built *.egg-info
