"""Wagtail locale codes → DeepL language codes.

DeepL takes a bare language as the *source* (``EN``, ``PT``, ``ZH``) but wants a variant for
some *targets* (``EN-GB``/``EN-US``, ``PT-PT``/``PT-BR``, ``ZH-HANS``/``ZH-HANT``; the bare
``EN`` and ``PT`` targets are deprecated and refused by the ``deepl`` client). A Wagtail locale
is mapped by, in order:

1. the translator's ``LOCALE_MAP`` option, ``{wagtail code: DeepL target code or None}``
   (``None`` marks a locale as unsupported on purpose), e.g. ``{"en-ca": "EN-GB"}``;
2. the built-in regional table below (``pt-br`` → ``PT-BR``, ``zh-tw`` → ``ZH-HANT``,
   ``es-mx`` → ``ES-419``, ``no`` → ``NB``...);
3. the bare language with the default variant of ``DEFAULT_VARIANTS``, which the translator's
   option of the same name overrides: ``en`` → ``EN-US`` (``{"en": "EN-GB"}`` for a British
   site), ``pt`` → ``PT-PT``, ``zh`` → ``ZH-HANS``;
4. any other regional code falls back to its language (``de-at`` → ``DE``, ``fr-ca`` → ``FR``).

Codes DeepL does not translate (e.g. ``cy``, ``nn``, ``sr``) map to nothing: the translator's
``can_translate`` says no, :func:`unsupported_targets` lists them for a preflight, and
:func:`target_code` / :func:`source_code` raise :class:`UnsupportedLocale`.

HE, TH, VI and ES-419 are only served by DeepL's next-gen models ("quality_optimized"); a
``MODEL_TYPE`` of "latency_optimized" makes DeepL refuse them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ...errors import ErrorCode, TranslatorError

LocaleMap = Mapping[str, str | None] | None
VariantMap = Mapping[str, str] | None


def words(text: str) -> list[str]:
    return text.split()


# DeepL's documented text-translation languages (developers.deepl.com, "Languages supported").
# Kept as data rather than fetched from /v2/languages: can_translate() runs at preflight and
# in the editor without a network call, and /v2/languages omits the next-gen-only languages.
SOURCE_LANGUAGES = frozenset(
    words(
        "AR BG CS DA DE EL EN ES ET FI FR HE HU ID IT JA KO LT LV NB NL PL PT RO RU SK SL SV TH "
        "TR UK VI ZH"
    )
)
TARGET_LANGUAGES = frozenset(
    words(
        "AR BG CS DA DE EL EN-GB EN-US ES ES-419 ET FI FR HE HU ID IT JA KO LT LV NB NL PL PT-BR "
        "PT-PT RO RU SK SL SV TH TR UK VI ZH-HANS ZH-HANT"
    )
)

# Target variant for a bare language code (overridable with the DEFAULT_VARIANTS option).
DEFAULT_VARIANTS = {"en": "EN-US", "pt": "PT-PT", "zh": "ZH-HANS"}

# Spanish of these regions → Latin American Spanish.
LATIN_AMERICA = words("419 ar bo cl co cr cu do ec gt hn mx ni pa pe pr py sv us uy ve")
REGIONAL = {
    **{f"en-{r}": "EN-GB" for r in words("gb uk au nz ie za in mt")},
    "en-us": "EN-US",
    "pt-br": "PT-BR",
    **{f"pt-{r}": "PT-PT" for r in words("pt ao mz cv gw st tl")},
    **{f"zh-{r}": "ZH-HANS" for r in words("hans cn sg my hans-cn hans-sg")},
    **{f"zh-{r}": "ZH-HANT" for r in words("hant tw hk mo hant-tw hant-hk")},
    **{f"es-{r}": "ES-419" for r in LATIN_AMERICA},
    # Norwegian: DeepL translates Bokmål; "no" is what most sites call it. Nynorsk ("nn") is
    # a different written standard and stays unsupported.
    "no": "NB",
    "nb-no": "NB",
    "no-no": "NB",
    # Legacy ISO 639 codes still found in old locale lists.
    "iw": "HE",
    "in": "ID",
}


class UnsupportedLocale(TranslatorError):
    """DeepL cannot translate from or into this locale (units fail with UNSUPPORTED_LOCALE)."""

    def __init__(self, locale_code: str, role: str = "target") -> None:
        super().__init__(
            f"DeepL cannot translate {'into' if role == 'target' else 'from'} the locale "
            f"{locale_code!r}. Remove it from the run, or map it to a DeepL language with the "
            'translator\'s LOCALE_MAP option (e.g. {"%s": "EN-GB"}).' % locale_code,
            ErrorCode.UNSUPPORTED_LOCALE,
        )
        self.locale_code = locale_code


def normalize(code: str) -> str:
    return code.strip().lower().replace("_", "-")


def base_language(deepl_code: str) -> str:
    """``EN-GB`` → ``EN``, ``ZH-HANT`` → ``ZH``, ``ES-419`` → ``ES``."""
    return deepl_code.upper().split("-")[0]


def deepl_target(
    locale_code: str,
    locale_map: Mapping[str, str | None] | None = None,
    default_variants: Mapping[str, str] | None = None,
) -> str | None:
    """The DeepL target code for a Wagtail locale code, or None if DeepL has none."""
    code = normalize(locale_code)
    overrides = {normalize(k): v for k, v in (locale_map or {}).items()}
    if code in overrides:
        value = overrides[code]
        return value.upper() if value else None
    if code in REGIONAL:
        return REGIONAL[code]
    language = code.split("-")[0]
    variants = {
        **DEFAULT_VARIANTS,
        **{normalize(k): v for k, v in (default_variants or {}).items()},
    }
    if language in overrides:
        value = overrides[language]
        return value.upper() if value else None
    if language in variants:
        return variants[language].upper()
    if language in REGIONAL:  # "no-xx" → NB
        return REGIONAL[language]
    candidate = language.upper()
    return candidate if candidate in TARGET_LANGUAGES else None


def deepl_source(
    locale_code: str,
    locale_map: Mapping[str, str | None] | None = None,
    default_variants: Mapping[str, str] | None = None,
) -> str | None:
    """The DeepL source code (a bare language) for a Wagtail locale code, or None."""
    target = deepl_target(locale_code, locale_map, default_variants)
    if target is None:
        return None
    source = base_language(target)
    return source if source in SOURCE_LANGUAGES else None


def target_code(
    locale_code: str, locale_map: LocaleMap = None, default_variants: VariantMap = None
) -> str:
    return supported(deepl_target(locale_code, locale_map, default_variants), locale_code, "target")


def source_code(
    locale_code: str, locale_map: LocaleMap = None, default_variants: VariantMap = None
) -> str:
    return supported(deepl_source(locale_code, locale_map, default_variants), locale_code, "source")


def supported(code: str | None, locale_code: str, role: str) -> str:
    if code is None:
        raise UnsupportedLocale(locale_code, role)
    return code


def can_translate(
    source: str,
    target: str,
    locale_map: LocaleMap = None,
    default_variants: VariantMap = None,
) -> bool:
    """Both codes map, and they are different languages (DeepL refuses EN → EN-GB)."""
    src = deepl_source(source, locale_map, default_variants)
    tgt = deepl_target(target, locale_map, default_variants)
    return src is not None and tgt is not None and src != base_language(tgt)


def unsupported_targets(
    source: str,
    targets: Iterable[str],
    locale_map: LocaleMap = None,
    default_variants: VariantMap = None,
) -> list[str]:
    """The target locale codes a run from ``source`` cannot send to DeepL, for a preflight.

    Every target is listed when the source itself is unsupported.
    """
    return [
        target
        for target in targets
        if not can_translate(source, target, locale_map, default_variants)
    ]
