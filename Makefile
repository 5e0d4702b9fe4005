# The README's two commands: `make run` and `make test`. Both set themselves up on first use.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
EXAMPLE ?= examples/prototype-then-ascend.yaml
# The version constraints.txt pins for a package: $(call pin,torch) -> 2.13.0
pin = $(shell sed -n 's/^$(1)==//p' constraints.txt)

.PHONY: run test setup bench mutation clean schemas lint browser

setup: $(STAMP)

# Re-install when the project's dependency files change. The first install says what it brings, how big
# and how long (measured on a 2-core host: 4.5 min, 4 GB), and shows pip's own progress, all on stderr.
$(STAMP): pyproject.toml constraints.txt
	@test -x $(BIN)/python || { echo "make: creating $(VENV) (a Python 3.11 virtual environment in this folder)" >&2; \
		$(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV); }
	@echo "make: installing framework-advisor with PyTorch $(call pin,torch) (CPU build), MindSpore $(call pin,mindspore)," >&2
	@echo "      ONNX Runtime, scikit-learn, Textual and the test tools (constraints.txt): about 4 GB once" >&2
	@echo "      installed, 4-5 minutes on a 2-core host with a fast network; pip's progress follows" >&2
	$(BIN)/python -m pip install --progress-bar on -c constraints.txt -e '.[pytorch,mindspore,deploy,accuracy,test,dev,completion]' >&2
	@touch $(STAMP)
	@echo "make: installed into $(VENV); later runs skip this step until pyproject.toml or constraints.txt change" >&2

# The main job: the TUI on a terminal; otherwise the headless report for the bundled example.
# Setting up on first use talks on stderr only, so `make run > report.md` holds just the report; its date
# is the example's last commit (SOURCE_DATE_EPOCH), so the same inputs give the same document twice.
run:
	@$(MAKE) --no-print-directory -s setup >&2
	@if [ -t 0 ] && [ -t 1 ]; then \
		$(BIN)/advisor; \
	else \
		SOURCE_DATE_EPOCH=$$(git log -1 --format=%ct -- $(EXAMPLE) 2>/dev/null || stat -c %Y $(EXAMPLE)) \
			$(BIN)/advisor report $(EXAMPLE) --markdown --no-cache; \
	fi

# The suite as two pytest processes side by side (tests/halves.py): the framework tests beside the rest.
# ADVISOR_TEST_SERIAL=1 (or a -m of your own in PYTEST_ARGS) runs one plain pytest.
test: $(STAMP) browser
	$(BIN)/python tests/halves.py $(PYTEST_ARGS)

# Debian's Chromium and its driver for the real-browser test of the HTML report (selenium drives them).
# Installed when missing and apt is usable (root); otherwise that test says what is missing and skips.
browser:
	@if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver) >&2 \
			|| echo "could not install chromium + chromium-driver: the browser test will skip" >&2; \
		else echo "chromium + chromium-driver missing (apt-get install chromium chromium-driver): the browser test will skip" >&2; fi; \
	fi

# Lint (ruff, configured in pyproject.toml) and the import contracts (import-linter, ibid.).
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

# Every benchmark script, the mutation run as its smoke (3 mutants of each package, a fixed seed, two planted
# bugs: 34 s of CPU, 75 s on a loaded 2-core host), so the runner cannot silently rot.
bench: $(STAMP)
	@for b in benchmarks/*.py; do [ "$$b" = benchmarks/mutation_check.py ] && continue; \
		echo "== $$b"; $(BIN)/python $$b || exit 1; done
	@echo "== benchmarks/mutation_check.py --smoke"; $(BIN)/python benchmarks/mutation_check.py --smoke

# Does the fast suite fail, by an assertion, when the code is wrong? The planted bugs, and 40 generated
# mutants of each package drawn at random with a fixed seed (the decision arithmetic, the cache and
# writer, the probe result path, the number formatting: 15 min on a loaded 2-core host, 7 of them tracing
# the tests once); MUTATION_ARGS="--sample 0" for every mutant (hours). Prints the score per package:
# killed / (killed + survived), with errors, timeouts, crashes, unreached lines and equivalents apart.
MUTATION_ARGS ?= --sample 40 --seed 41
mutation: $(STAMP)
	$(BIN)/python benchmarks/mutation_check.py $(MUTATION_ARGS)

schemas: $(STAMP)
	$(BIN)/python -m advisor.schemas

clean:
	rm -rf $(VENV) .pytest_cache
