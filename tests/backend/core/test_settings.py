"""Start-up refuses unsafe settings: serving beyond loopback needs DRIVELAB_SECRET_KEY, and
session cookies are Secure there."""

from __future__ import annotations

import pytest

from backend.core.settings import Settings, is_loopback


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "localhost"])
def test_loopback_binds_need_no_secret(host: str) -> None:
    settings = Settings(host=host, secret_key=None)
    settings.check_safe_bind()
    assert is_loopback(host)
    assert not settings.secure_cookies


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.20", "lab.example.com"])
def test_binding_beyond_loopback_without_a_secret_refuses_to_start(host: str) -> None:
    with pytest.raises(SystemExit) as refused:
        Settings(host=host, secret_key=None).check_safe_bind()
    assert "DRIVELAB_SECRET_KEY" in str(refused.value) and host in str(refused.value)
    allowed = Settings(host=host, secret_key="x" * 64)
    allowed.check_safe_bind()
    assert allowed.secure_cookies


def test_secure_cookies_can_be_set_either_way() -> None:
    assert Settings(host="0.0.0.0", secret_key="s", cookie_secure=False).secure_cookies is False
    assert Settings(host="127.0.0.1", cookie_secure=True).secure_cookies is True
