"""Start-up refuses unsafe settings: an empty address to serve on, and serving beyond loopback
without a DRIVELAB_SECRET_KEY long and random enough to be a key; session cookies are Secure
there."""

from __future__ import annotations

import secrets

import pytest

from backend.core.settings import SECRET_KEY_MIN_CHARS, Settings, is_loopback

KEY = secrets.token_urlsafe(32)


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
    assert "DRIVELAB_SECRET_KEY is not set" in str(refused.value) and host in str(refused.value)
    assert "secrets.token_urlsafe(32)" in str(refused.value)
    allowed = Settings(host=host, secret_key=KEY)
    allowed.check_safe_bind()
    assert allowed.secure_cookies


@pytest.mark.parametrize("host", ["", " "])
def test_an_empty_host_is_refused_not_taken_for_loopback(host: str) -> None:
    """uvicorn listens on every address for an empty host: it must not pass as loopback (no
    secret, cookies not Secure)."""
    assert not is_loopback(host)
    with pytest.raises(SystemExit) as refused:
        Settings(host=host, secret_key=KEY).check_safe_bind()
    assert "is empty" in str(refused.value) and "0.0.0.0" in str(refused.value)
    assert Settings(host=host).secure_cookies


@pytest.mark.parametrize(
    ("key", "problem"),
    [
        ("s", "too short (1 characters)"),
        (secrets.token_urlsafe(32)[: SECRET_KEY_MIN_CHARS - 1], "too short (42 characters)"),
        ("x" * 64, "not random (only 1 distinct characters)"),
        ("abc123" * 10, "not random (only 6 distinct characters)"),
    ],
    ids=["one-character", "42-characters", "one-character-repeated", "six-repeated"],
)
def test_a_secret_key_must_be_long_and_random(key: str, problem: str) -> None:
    with pytest.raises(SystemExit) as refused:
        Settings(host="0.0.0.0", secret_key=key).check_safe_bind()
    message = str(refused.value)
    assert problem in message, message
    assert "secrets.token_urlsafe(32)" in message and "openssl rand -hex 32" in message
    assert len(key) == 1 or key not in message  # the key itself is never printed


# Named ids: pytest-xdist's workers must collect the same test names (the keys are random).
@pytest.mark.parametrize(
    "key", [secrets.token_urlsafe(32), secrets.token_hex(32)], ids=["urlsafe", "hex"]
)
def test_keys_made_as_the_message_says_are_taken(key: str) -> None:
    Settings(host="0.0.0.0", secret_key=key).check_safe_bind()
    # On loopback a key is not required, so a short one is not refused either.
    Settings(host="127.0.0.1", secret_key="s").check_safe_bind()


def test_secure_cookies_can_be_set_either_way() -> None:
    assert Settings(host="0.0.0.0", secret_key="s", cookie_secure=False).secure_cookies is False
    assert Settings(host="127.0.0.1", cookie_secure=True).secure_cookies is True
