"""Pages from the Jinja2 templates of this package, with autoescape on: a
log name, a header line or a reason is shown as text, whatever it holds."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from .paths import href
from .values import as_json, duration, short_duration, shown, sort_key, with_unit

TEMPLATES = Path(__file__).resolve().parent / "templates"


@lru_cache(maxsize=1)
def environment():
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(shown=shown, sort_key=sort_key, as_json=as_json, with_unit=with_unit, duration=duration,
                       short_duration=short_duration)
    return env


def render(template: str, page: str, **data: Any) -> str:
    """The page at site path `page`; `link(target)` in a template is the
    relative link from it to another site path."""
    return environment().get_template(template).render(page=page, link=lambda target: href(page, target), **data)
