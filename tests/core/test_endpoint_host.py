"""The one endpoint-to-host rule the result file and the judged file record."""

from __future__ import annotations

import pytest

from engine.core.config import endpoint_host
from engine.core.errors import UserError


def test_only_host_and_port_are_kept_so_credentials_never_reach_a_file():
    assert endpoint_host("http://user:sk-secret@10.0.0.5:8080/v1") == "10.0.0.5:8080"
    assert endpoint_host("https://api.example.org/v1") == "api.example.org"


@pytest.mark.parametrize("endpoint", ["http:///v1", "/v1", ""])
def test_an_endpoint_without_a_host_is_refused_naming_whose_it_is(endpoint):
    with pytest.raises(UserError, match=r"^judge endpoint .* has no host; give e\.g\. http://"):
        endpoint_host(endpoint, "judge endpoint")


def test_an_endpoint_that_is_no_url_is_refused():
    with pytest.raises(UserError, match=r"^endpoint 'http://\[::1' is not a URL"):
        endpoint_host("http://[::1")
