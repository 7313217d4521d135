"""The issue forms follow GitHub's issue-form syntax (checked offline against the documented keys).

The models below are our own reading of GitHub's "Syntax for issue forms" and "Syntax for GitHub's form
schema" pages: the top-level keys, the five body element types with the attributes each accepts, and the
rules on ids and labels. Unknown keys are errors, as they are on GitHub.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Literal

import pytest
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from engine.publish.site.index_model_page import CORRECTION_FORM, MODEL_REQUEST_FORM, correction_url

FORMS = Path(__file__).resolve().parents[2] / ".github" / "ISSUE_TEMPLATE"
ID = re.compile(r"^[A-Za-z0-9_-]+$")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Validations(_Strict):
    required: bool = False


class MarkdownAttrs(_Strict):
    value: str = Field(min_length=1)


class InputAttrs(_Strict):
    label: str = Field(min_length=1)
    description: str | None = None
    placeholder: str | None = None
    value: str | None = None


class TextareaAttrs(InputAttrs):
    render: str | None = None


class DropdownAttrs(_Strict):
    label: str = Field(min_length=1)
    description: str | None = None
    multiple: bool = False
    options: list[str] = Field(min_length=1)
    default: int | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _options(self) -> DropdownAttrs:
        if len(set(self.options)) != len(self.options):
            raise ValueError("dropdown options must be unique")
        if any(o.strip().lower() == "none" for o in self.options):
            raise ValueError("'None' is reserved and cannot be a dropdown option")
        if self.default is not None and self.default >= len(self.options):
            raise ValueError("default is past the last option")
        return self


class CheckboxOption(_Strict):
    label: str = Field(min_length=1)
    required: bool = False


class CheckboxesAttrs(_Strict):
    label: str = Field(min_length=1)
    description: str | None = None
    options: list[CheckboxOption] = Field(min_length=1)


class _Element(_Strict):
    id: str | None = None

    @field_validator("id")
    @classmethod
    def _id(cls, value: str | None) -> str | None:
        if value is not None and not ID.match(value):
            raise ValueError("an id may only hold letters, digits, '-' and '_'")
        return value


class Markdown(_Strict):
    type: Literal["markdown"]
    attributes: MarkdownAttrs


class InputEl(_Element):
    type: Literal["input"]
    attributes: InputAttrs
    validations: Validations | None = None


class TextareaEl(_Element):
    type: Literal["textarea"]
    attributes: TextareaAttrs
    validations: Validations | None = None


class DropdownEl(_Element):
    type: Literal["dropdown"]
    attributes: DropdownAttrs
    validations: Validations | None = None


class CheckboxesEl(_Element):
    type: Literal["checkboxes"]
    attributes: CheckboxesAttrs
    validations: Validations | None = None


Element = Annotated[Markdown | InputEl | TextareaEl | DropdownEl | CheckboxesEl, Field(discriminator="type")]


class IssueForm(_Strict):
    name: str = Field(min_length=1)
    description: str = Field(min_length=1)
    body: list[Element] = Field(min_length=1)
    title: str | None = None
    labels: list[str] | str | None = None
    assignees: list[str] | str | None = None
    projects: list[str] | str | None = None
    type: str | None = None

    @model_validator(mode="after")
    def _body(self) -> IssueForm:
        fields = [e for e in self.body if not isinstance(e, Markdown)]
        if not fields:
            raise ValueError("a form needs at least one field that is not markdown")
        ids = [e.id for e in fields if e.id is not None]
        if len(ids) != len(set(ids)):
            raise ValueError("ids must be unique in a form")
        labels = [e.attributes.label for e in fields]
        if len(labels) != len(set(labels)):
            raise ValueError("labels must be unique in a form")
        return self


class ContactLink(_Strict):
    name: str
    url: str = Field(pattern=r"^https://")
    about: str


class TemplateConfig(_Strict):
    blank_issues_enabled: bool | None = None
    contact_links: list[ContactLink] = Field(default_factory=list)


def _load(name: str) -> dict:
    return yaml.safe_load((FORMS / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", [CORRECTION_FORM, MODEL_REQUEST_FORM])
def test_form_is_valid_and_requires_a_source_link(name):
    form = IssueForm.model_validate(_load(name))
    source = next(e for e in form.body if getattr(e, "id", None) == "source")
    assert isinstance(source, InputEl) and source.validations and source.validations.required


def test_config_is_valid():
    TemplateConfig.model_validate(_load("config.yml"))


def test_the_prefill_parameters_match_the_form():
    form = IssueForm.model_validate(_load(CORRECTION_FORM))
    ids = {e.id for e in form.body if not isinstance(e, Markdown)}
    url = correction_url("https://github.com/o/r", "m", "M")
    params = {p.split("=")[0] for p in url.split("?")[1].split("&")}
    assert params - {"template", "title", "labels"} <= ids  # every prefilled field exists in the form
    assert (FORMS / CORRECTION_FORM).is_file()


@pytest.mark.parametrize(
    "broken",
    [
        {
            "name": "x",
            "description": "y",
            "body": [{"type": "input", "attributes": {"label": "a"}, "oops": 1}],
        },
        {
            "name": "x",
            "description": "y",
            "body": [{"type": "markdown", "attributes": {"value": "only text"}}],
        },
        {"name": "x", "body": [{"type": "input", "attributes": {"label": "a"}}]},
        {
            "name": "x",
            "description": "y",
            "body": [
                {"type": "input", "id": "a", "attributes": {"label": "A"}},
                {"type": "input", "id": "a", "attributes": {"label": "B"}},
            ],
        },
        {
            "name": "x",
            "description": "y",
            "body": [{"type": "dropdown", "attributes": {"label": "a", "options": []}}],
        },
        {"name": "x", "description": "y", "body": [{"type": "slider", "attributes": {"label": "a"}}]},
    ],
)
def test_the_checks_reject_broken_forms(broken):
    with pytest.raises(ValidationError):
        IssueForm.model_validate(broken)
