# The README's two commands: `make run` and `make test`. Both set themselves up on first use.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
EXAMPLE ?= examples/prototype-then-ascend.yaml

.PHONY: run test setup bench clean schemas lint browser

setup: $(STAMP)

# Re-install when the project's dependency files change.
$(STAMP): pyproject.toml constraints.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[pytorch,mindspore,deploy,accuracy,test,dev]'
	@touch $(STAMP)

# The main job: the TUI on a terminal; otherwise the headless report for the bundled example.
# Setting up on first use talks on stderr only, so `make run > report.md` holds just the report.
run:
	@$(MAKE) --no-print-directory -s setup >&2
	@if [ -t 0 ] && [ -t 1 ]; then \
		$(BIN)/advisor; \
	else \
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

bench: $(STAMP)
	@for b in benchmarks/*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

schemas: $(STAMP)
	$(BIN)/python -m advisor.schemas

clean:
	rm -rf $(VENV) .pytest_cache
