# Two entry points: `make demo` and `make test`. Both create .venv on first use.
PYTHON ?= $(shell scripts/find-python)
VENV := .venv
BIN := $(VENV)/bin
MANAGE := $(BIN)/python sandbox/manage.py
STAMP := $(VENV)/.installed

.PHONY: demo serve test test-quick test-postgres test-browser test-oldest package-check docs lint format bench faults clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $(STAMP)

demo: $(STAMP)  ## Migrate, seed and translate the demo site end to end (SQLite, pseudo translator)
	$(MANAGE) demo $(DEMO_ARGS)

# The worker of the task backend the sandbox settings pick (TASK_BACKEND=db, the default, rq or
# celery),
# started again by scripts/supervise when it exits (a database restart ends a db_worker).
ifeq ($(TASK_BACKEND),rq)
WORKER := $(MANAGE) rqworker --with-scheduler bulk_translate default
else ifeq ($(TASK_BACKEND),celery)
WORKER := env PYTHONPATH=sandbox $(BIN)/celery -A sandbox worker -Q celery,bulk_translate --pool solo
else
WORKER := $(MANAGE) db_worker --queue-name '*'
endif

PORT ?= 8000

serve: $(STAMP)  ## The site and its admin on http://localhost:$(PORT)/admin/ (admin or editor / changeme), a worker
	$(MANAGE) migrate --verbosity 0
	$(MANAGE) seed_demo
	$(MANAGE) demo_sites --port $(PORT)
	export PORT=$(PORT); scripts/supervise $(WORKER) & \
	  trap 'kill $$!' EXIT INT TERM; $(MANAGE) runserver 0.0.0.0:$(PORT)

test: $(STAMP)  ## The whole suite on SQLite (set DATABASE_URL for PostgreSQL)
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(MANAGE) check --fail-level WARNING
	$(MANAGE) makemigrations --check --dry-run
	$(BIN)/pytest $(PYTEST_ARGS)

# The loop while coding: everything but the end-to-end tests (real worker processes, marker
# e2e, every test under tests/e2e/) and the RQ one. `make test` and CI run them.
test-quick: $(STAMP)
	$(BIN)/pytest -m "not e2e and not rq and not browser" -q $(PYTEST_ARGS)

test-postgres: $(STAMP)
	DATABASE_URL=$${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test} $(BIN)/pytest $(PYTEST_ARGS)

# The admin in a real browser: Playwright drives /usr/bin/chromium (CHROMIUM=... overrides;
# `apt-get install chromium`, no browser download) against a live server and a real worker.
# The accessibility tests inject axe-core, a pinned devDependency of package.json, from npm.
test-browser: $(STAMP) node_modules/axe-core/axe.min.js
	$(BIN)/pytest -m browser $(PYTEST_ARGS)

node_modules/axe-core/axe.min.js: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

# The oldest supported pair, in its own virtualenv (`make test` keeps the newest pair): Python
# 3.11, Django 5.2 LTS (the tasks API from the django-tasks backport) and Wagtail 7.4 LTS, which
# installs cleanly beside wagtail-localize. Wagtail 7.0 LTS does not install: it pins
# django-tasks<0.8, and the plugin needs django-tasks>=0.9 (django-tasks-rq >=0.12).
# PYTEST_ARGS_OLDEST narrows the pytest run (CI deselects the end-to-end tests with -m "not e2e":
# they ran on the newest pair); OLDEST_WAGTAIL tries another Wagtail, e.g. "wagtail>=8,<9".
PYTHON_OLDEST ?= $(shell for p in "$$(command -v python3.11 2>/dev/null)" \
	$$HOME/.pyenv/versions/3.11*/bin/python3.11; do [ -x "$$p" ] && "$$p" -c \
	'import sys, venv; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null && \
	{ echo "$$p"; break; }; done)
OLDEST_VENV := .venv-oldest
OLDEST_BIN := $(OLDEST_VENV)/bin
OLDEST_STAMP := $(OLDEST_VENV)/.installed
OLDEST_WAGTAIL ?= wagtail>=7.4,<7.5
OLDEST_PINS := "Django>=5.2,<5.3" "$(OLDEST_WAGTAIL)"
# Run from a temporary SQLite file, not the demo's sandbox/db.sqlite3.
OLDEST_MANAGE := SQLITE_PATH=$(OLDEST_VENV)/check.sqlite3 $(OLDEST_BIN)/python sandbox/manage.py

$(OLDEST_STAMP): pyproject.toml Makefile
	@test -n "$(PYTHON_OLDEST)" || { echo "No Python 3.11 found (python3.11 or pyenv)" >&2; exit 1; }
	test -x $(OLDEST_BIN)/python || $(PYTHON_OLDEST) -m venv $(OLDEST_VENV)
	echo '*' > $(OLDEST_VENV)/.gitignore
	$(OLDEST_BIN)/pip install --quiet --upgrade pip
	$(OLDEST_BIN)/pip install --quiet -e ".[dev]" $(OLDEST_PINS)
	touch $(OLDEST_STAMP)

test-oldest: $(OLDEST_STAMP)  ## The suite on the oldest pair (Python 3.11, Django 5.2, Wagtail 7.4)
	@$(OLDEST_BIN)/python -c 'import sys, django, wagtail; \
	  print(f"Python {sys.version.split()[0]}, Django {django.__version__}, Wagtail {wagtail.__version__}")'
	$(OLDEST_MANAGE) check --fail-level WARNING
	$(OLDEST_MANAGE) makemigrations --check --dry-run
	$(OLDEST_BIN)/pytest $(PYTEST_ARGS_OLDEST)

# The documentation site (docs/, mkdocs.yml); tests/test_docs_reference.py keeps the reference true.
docs: $(STAMP)  ## Build the documentation site into site/ (mkdocs build --strict: no broken link or anchor)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# The package as PyPI would get it: build the sdist and the wheel (from the sdist), check their
# contents and metadata, then install the wheel alone (not editable, no source tree on the path)
# in a fresh virtualenv and run Django's checks on the install steps' project there.
PACKAGE_VENV := .venv-package
PACKAGE_PROJECT := $(PACKAGE_VENV)/project
IN_PACKAGE_PROJECT := cd $(PACKAGE_PROJECT) && env -u PYTHONPATH -u DJANGO_SETTINGS_MODULE \
	DEEPL_AUTH_KEY=package-check ../bin/python

package-check: $(STAMP)  ## Build, twine check, install the wheel in a fresh venv, manage.py check
	rm -rf dist $(PACKAGE_VENV)
	$(BIN)/python -m build --quiet --outdir dist .
	$(BIN)/twine check --strict dist/*
	$(BIN)/python scripts/check_dist.py dist
	$(PYTHON) -m venv $(PACKAGE_VENV)
	echo '*' > $(PACKAGE_VENV)/.gitignore
	$(PACKAGE_VENV)/bin/pip install --quiet dist/*.whl django-tasks-db
	$(BIN)/python tests/readme_project.py $(PACKAGE_PROJECT) --python $(PACKAGE_VENV)/bin/python
	$(IN_PACKAGE_PROJECT) -c "import sys, wagtail_bulk_translate as p; \
	  sys.exit(0 if '/site-packages/' in p.__file__ else f'{p.__file__} is not the wheel')"
	$(IN_PACKAGE_PROJECT) manage.py check --fail-level WARNING
	$(IN_PACKAGE_PROJECT) manage.py makemigrations --check --dry-run

lint: $(STAMP)
	$(BIN)/ruff format --check . && $(BIN)/ruff check . && $(BIN)/mypy

format: $(STAMP)
	$(BIN)/ruff format . && $(BIN)/ruff check --fix .

# Every performance target measured side by side: `make bench BENCH_ARGS="--pages 200"`.
# Writes benchmarks/results/latest.json; see docs/benchmarks.md.
BENCH_ARGS ?=
bench: $(STAMP)
	$(BIN)/python -m benchmarks $(BENCH_ARGS)

# The fault campaign: each fault test (random SIGKILLs of db_workers and of Celery workers,
# PostgreSQL restarts, a worker cut off from the network, Redis restarts under RQ, RabbitMQ
# restarts under Celery) run FAULT_TRIALS times on PostgreSQL, its figures written to
# benchmarks/results/faults.md (FAULT_ARGS="--fault redis" picks faults). Restarts the machine's
# PostgreSQL, Redis and RabbitMQ: not beside a test suite.
FAULT_TRIALS ?= 3
faults: $(STAMP)
	$(BIN)/python scripts/fault_campaign.py --trials $(FAULT_TRIALS) $(FAULT_ARGS)

clean:
	rm -rf $(VENV) $(OLDEST_VENV) $(PACKAGE_VENV) dist site sandbox/db.sqlite3*
