"""The new-run form's translator choice: among the profiles a site owner lets editors choose,
for the whole run or per locale; without any, the routing decides and no field shows."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.admin.test_new_run import form_data, hidden_inputs, url
from tests.translator_doubles import RECORDING_TRANSLATOR
from wagtail_bulk_translate.models import Run
from wagtail_bulk_translate.translators.pins import run_pins

pytestmark = pytest.mark.django_db

PSEUDO = "wagtail_bulk_translate.translators.pseudo.PseudoTranslator"


@pytest.fixture
def two_profiles(conf):
    def _configure(**keys):
        conf(
            TRANSLATOR=None,
            TRANSLATORS={
                "fast": {"CLASS": PSEUDO, "NAME": "Fast engine"},
                "careful": {"CLASS": RECORDING_TRANSLATOR, "NAME": "Careful engine"},
            },
            **keys,
        )

    _configure()
    return _configure


def profiles_of(run: Run) -> dict[str, str]:
    codes = dict(run.target_locales.values_list("pk", "language_code"))
    return {codes[pk]: pin.profile for pk, pin in run_pins(run).items()}


def start_through_the_form(client, site_tree, **fields) -> Run:
    data = form_data(**{"pages-0-page": str(site_tree["news"].pk), **fields})
    preflight = client.post(url(), data)
    assert preflight.status_code == 200, preflight.content.decode()[:2000]
    response = client.post(url(), {**hidden_inputs(preflight.content.decode()), "action": "start"})
    assert response.status_code == 302
    return Run.objects.get()


def test_without_editor_choices_the_form_has_no_translator_field(
    admin_client, site_tree, two_profiles
):
    html = admin_client.get(url()).content.decode()

    assert 'data-bt-field="translator"' not in html


def test_an_editor_chooses_a_profile_for_the_run_and_one_for_a_locale(
    admin_client, site_tree, two_profiles, task_queue
):
    two_profiles(EDITOR_TRANSLATORS=["fast", "careful"])
    html = admin_client.get(url()).content.decode()
    assert 'data-bt-field="translator"' in html and "Careful engine" in html

    run = start_through_the_form(
        admin_client, site_tree, translator="careful", translator__de="fast"
    )

    assert profiles_of(run) == {"fr": "careful", "de": "fast"}


def test_the_preflight_names_each_locales_translator(
    admin_client, site_tree, two_profiles, task_queue
):
    two_profiles(EDITOR_TRANSLATORS=["fast", "careful"])
    data = form_data(**{"pages-0-page": str(site_tree["news"].pk), "translator__fr": "careful"})

    html = admin_client.post(url(), data).content.decode()

    assert 'data-bt-locale-profile="fr">Careful engine<' in html
    assert 'data-bt-locale-profile="de">Fast engine<' in html
    assert "data-bt-preflight-profiles" in html  # two profiles: an estimate per profile


def test_a_profile_outside_the_editors_choices_is_a_field_error(
    admin_client, site_tree, two_profiles
):
    two_profiles(EDITOR_TRANSLATORS=["fast"])
    data = form_data(**{"pages-0-page": str(site_tree["news"].pk), "translator": "careful"})

    response = admin_client.post(url(), data)

    assert "translator" in response.context["form"].errors
    assert not Run.objects.exists()


def test_the_runs_listing_names_each_profile_with_its_locales(
    admin_client, site_tree, two_profiles, task_queue
):
    two_profiles(EDITOR_TRANSLATORS=["fast", "careful"])
    start_through_the_form(admin_client, site_tree, translator="careful", translator__de="fast")

    html = admin_client.get(reverse("wagtail_bulk_translate:index")).content.decode()

    assert "Careful engine: fr · Fast engine: de" in html
