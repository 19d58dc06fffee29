# glueprof: the two commands of the README (make run, make test) and a few helpers.
BUILD_DIR ?= build/release
JOBS ?= 2
CMAKE_ARGS ?=
GLUEPROF = $(BUILD_DIR)/app/cli/glueprof

.PHONY: all bootstrap configure build run test bench fuzz sanitize clean format check-format

all: build

bootstrap:
	./scripts/bootstrap.sh

# libtorch: the torch of scripts/torch-env.sh's environment (PyPI, CUDA 13), unless TORCH_DIR names another.
configure: bootstrap
	python=$$(./scripts/torch-env.sh --python) && \
	  cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release -DGLUEPROF_PYTHON="$$python" $(CMAKE_ARGS)

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

# The main job: an A/B of every toggle — the dense ones on `tiny`, the MoE ones on `moe-tiny` —
# within a time budget (10 blocks each: blocks, not steps, are the independent units; steps per
# block, at most 8, from the warm-up's step time), then one HTML report of all of them (builds the
# CLI only). The same on `small` / `moe-small`: `glueprof ab --all --preset small` (minutes more).
RUN_AB = --warmup 1 --steps 8 --repeats 10 --db runs.sqlite
run: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target glueprof
	$(GLUEPROF) ab --all --preset tiny --budget 70 $(RUN_AB) --report glueprof-report.md
	$(GLUEPROF) ab --opt moe_group_once --opt moe_sync_free --preset moe-tiny --budget 30 $(RUN_AB) \
	  --report glueprof-moe-report.md
	$(GLUEPROF) report --db runs.sqlite --out glueprof-report.html

test: build
	ctest --test-dir $(BUILD_DIR) -j $(JOBS) --output-on-failure

bench: build
	$(BUILD_DIR)/bench/glueprof_bench --benchmark_enable_random_interleaving=true
	@if command -v valgrind >/dev/null; then bench/op_instructions.sh $(BUILD_DIR) build/op-instructions; else echo "bench/op_instructions.sh skipped: no valgrind (apt-get install valgrind)"; fi
	@if command -v valgrind >/dev/null; then $$(./scripts/torch-env.sh --python) bench/step_instructions.py $(GLUEPROF) build/step-instructions --python $$(./scripts/torch-env.sh --python); else echo "bench/step_instructions.py skipped: no valgrind (apt-get install valgrind)"; fi
	bench/import_bench.sh $(BUILD_DIR) 1024 build/import-bench
	$$(./scripts/torch-env.sh --python) bench/hta_speed.py $(GLUEPROF) build/hta-speed
	$$(./scripts/torch-env.sh --python) bench/hta_critical_path.py $(GLUEPROF) build/hta-critical-path
	bench/rank_scaling.sh $(BUILD_DIR) build/rank-scaling
	bench/verdict_calibration.py $(GLUEPROF) build/verdict-calibration
	bench/verdict_under_load.py $(GLUEPROF) build/verdict-under-load --hogs 1
	bench/profile_store_memory.py $(GLUEPROF) $$(./scripts/torch-env.sh --python) build/profile-store-memory
	$$(./scripts/torch-env.sh --python) bench/profile_overhead.py $(GLUEPROF) build/profile-overhead
	$$(./scripts/torch-env.sh --python) bench/profile_overhead.py $(GLUEPROF) build/profile-overhead-1thread --threads 1
	@if [ -f glueprof-report.html ]; then bench/report_screenshot.sh glueprof-report.html build/glueprof-report.png; fi
	@if [ -x $(BUILD_DIR)/app/gui/glueprof-gui ]; then bench/gui_frame_time.sh $(BUILD_DIR); fi

# The CLI fuzz harness for longer than the 30 s of `make test` (FUZZ_SEED picks another sequence).
# FUZZ_CONCURRENT=N: rounds of N processes of mixed commands on one database instead, its integrity
# and every writer's runs checked after each round.
FUZZ_SECONDS ?= 600
FUZZ_SEED ?= $(shell date +%s)
FUZZ_CONCURRENT ?= 0
# FUZZ_PROFILE=1: `profile` and `ab --exec` instead, launches of a real Python program sent random
# signals at random moments (tests/fuzz/ProfileFuzz.cpp).
FUZZ_PROFILE ?= 0
GUI_BINARY = $(BUILD_DIR)/app/gui/glueprof-gui
fuzz: build
ifeq ($(FUZZ_PROFILE),1)
	$(BUILD_DIR)/tests/glueprof_profile_fuzz --cli $(GLUEPROF) --python $$(./scripts/torch-env.sh --python) \
	  --work build/profile-fuzz --seconds $(FUZZ_SECONDS) --seed $(FUZZ_SEED)
else
	$(BUILD_DIR)/tests/glueprof_cli_fuzz --cli $(GLUEPROF) $(if $(wildcard $(GUI_BINARY)),--gui $(GUI_BINARY)) \
	  --source . --work build/cli-fuzz --seconds $(FUZZ_SECONDS) --seed $(FUZZ_SEED) \
	  --concurrent $(FUZZ_CONCURRENT)
endif

# The whole suite built with AddressSanitizer and UndefinedBehaviorSanitizer (its own build dir).
sanitize:
	./scripts/sanitize.sh

format:
	git ls-files '*.cpp' '*.h' | xargs clang-format -i

check-format:
	./scripts/check-format.sh

clean:
	rm -rf build
