"""The glossary and house style as translators and checks read them (the models are in
``models/glossary.py``): lookups per language pair, term matching, CSV import and export, and
the queueing of DeepL glossary syncs when terms change."""
