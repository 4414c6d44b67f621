"""`wla.archive.clean.predicate`, the name the documentation's examples import the
job predicates by, is the store's module itself, not a copy."""
from __future__ import annotations


def test_the_name_is_the_store_s_module():
    import wla.archive.clean.predicate as by_clean
    import wla.archive.store.predicate as by_store

    assert by_clean is by_store
    assert by_clean.predicate_sql is by_store.predicate_sql
