# Two entry points: `make demo` and `make test`. Both create .venv on first use.
PYTHON ?= $(shell scripts/find-python)
VENV := .venv
BIN := $(VENV)/bin
MANAGE := $(BIN)/python sandbox/manage.py
STAMP := $(VENV)/.installed

.PHONY: demo serve test test-postgres lint format benchmark clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $(STAMP)

demo: $(STAMP)  ## Migrate, seed and translate the demo site end to end (SQLite, pseudo translator)
	$(MANAGE) demo

serve: $(STAMP)  ## Admin at http://localhost:8000/admin/ (admin / changeme) with a task worker
	$(MANAGE) migrate --verbosity 0
	$(MANAGE) db_worker --queue-name '*' & \
	  trap 'kill $$!' EXIT INT TERM; $(MANAGE) runserver 0.0.0.0:8000

test: $(STAMP)  ## The whole suite on SQLite (set DATABASE_URL for PostgreSQL)
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(MANAGE) check --fail-level WARNING
	$(MANAGE) makemigrations --check --dry-run
	$(BIN)/pytest $(PYTEST_ARGS)

test-postgres: $(STAMP)
	DATABASE_URL=$${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test} $(BIN)/pytest $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff format --check . && $(BIN)/ruff check .

format: $(STAMP)
	$(BIN)/ruff format . && $(BIN)/ruff check --fix .

benchmark: $(STAMP)
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) sandbox/db.sqlite3*
