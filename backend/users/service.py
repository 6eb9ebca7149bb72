"""Users, their API tokens, browser sessions, one-time sign-in links and password sign-in."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from backend.audit import service as audit
from backend.core.db import utcnow
from backend.core.errors import Conflict, Forbidden, NotFound, Unauthorized
from backend.core.ratelimit import FailureCounter, TooManyAttempts
from backend.core.security import (
    hash_password,
    hash_token,
    needs_rehash,
    new_secret,
    new_token,
    verify_password,
)
from backend.users.models import ApiToken, LoginLink, LoginSession, User
from backend.users.schemas import UserCreate, UserUpdate

ONCE_LINK_TTL_S = 15 * 60

# --- users ---------------------------------------------------------------------------------


def get_user(session: Session, user_id: int) -> User:
    user = session.get(User, user_id)
    if user is None:
        raise NotFound(f"user {user_id} does not exist: see GET /api/users", field="user_id")
    return user


def get_user_by_name(session: Session, name: str) -> User | None:
    return session.scalar(select(User).where(User.name == name))


def list_users(session: Session) -> list[User]:
    return list(session.scalars(select(User).order_by(User.id)))


def create_user(session: Session, data: UserCreate, actor: User) -> User:
    if session.scalar(select(User.id).where(func.lower(User.name) == data.name.lower())):
        raise Conflict(f"a user named {data.name} exists: choose another name", field="name")
    user = User(
        name=data.name,
        role=data.role,
        password_hash=hash_password(data.password) if data.password else None,
    )
    session.add(user)
    session.flush()
    audit.record(
        session, "user.created", actor, subject=f"user {user.name}", details={"role": user.role}
    )
    return user


def _other_active_admins(session: Session, user: User) -> int:
    return int(
        session.scalar(
            select(func.count()).where(
                User.role == "admin", User.disabled.is_(False), User.id != user.id
            )
        )
        or 0
    )


def update_user(session: Session, user_id: int, data: UserUpdate, actor: User) -> User:
    user = get_user(session, user_id)
    changes = data.model_dump(exclude_unset=True)
    losing_admin = (
        user.role == "admin"
        and not user.disabled
        and (changes.get("role") not in (None, "admin") or changes.get("disabled") is True)
    )
    if losing_admin and _other_active_admins(session, user) == 0:
        raise Conflict(
            f"{user.name} is the only active admin: make another user an admin first",
            field="role" if "role" in changes else "disabled",
        )
    subject = f"user {user.name}"
    if changes.get("role") not in (None, user.role):
        audit.record(
            session,
            "user.role_changed",
            actor,
            subject=subject,
            details={"from": user.role, "to": changes["role"]},
        )
        user.role = changes["role"]
    if changes.get("password"):
        user.password_hash = hash_password(changes["password"])
        audit.record(session, "user.password_changed", actor, subject=subject)
    if changes.get("disabled") is not None and changes["disabled"] != user.disabled:
        user.disabled = changes["disabled"]
        audit.record(
            session, "user.disabled" if user.disabled else "user.enabled", actor, subject=subject
        )
    if user.disabled or "password" in changes:
        # A disabled user, or one whose password changed, is signed out everywhere.
        session.execute(delete(LoginSession).where(LoginSession.user_id == user.id))
    session.flush()
    return user


# --- API tokens ----------------------------------------------------------------------------


def list_tokens(session: Session, user: User) -> list[ApiToken]:
    return list(
        session.scalars(select(ApiToken).where(ApiToken.user_id == user.id).order_by(ApiToken.id))
    )


def create_token(
    session: Session, user: User, name: str, actor: User | str
) -> tuple[ApiToken, str]:
    """A new API token for `user`: (row, the token itself, shown once)."""
    raw = new_token("dla")
    token = ApiToken(user_id=user.id, name=name, token_hash=hash_token(raw))
    session.add(token)
    session.flush()
    audit.record(
        session,
        "user_token.created",
        actor,
        subject=f"token {name} of user {user.name}",
        details={"token_id": token.id, "user": user.name},
    )
    return token, raw


def revoke_token(session: Session, user: User, token_id: int, actor: User | str) -> ApiToken:
    token = session.scalar(
        select(ApiToken).where(ApiToken.id == token_id, ApiToken.user_id == user.id)
    )
    if token is None:
        raise NotFound(f"user {user.name} has no token {token_id}", field="token_id")
    if token.revoked_at is None:
        token.revoked_at = utcnow()
        audit.record(
            session,
            "user_token.revoked",
            actor,
            subject=f"token {token.name} of user {user.name}",
            details={"token_id": token.id, "user": user.name},
        )
    return token


def revoke_tokens_named(session: Session, user: User, name: str, actor: str) -> None:
    for token in list_tokens(session, user):
        if token.name == name and token.revoked_at is None:
            revoke_token(session, user, token.id, actor)


# --- sessions ------------------------------------------------------------------------------


def create_session(
    session: Session, user: User, ttl_s: int, user_agent: str | None
) -> tuple[LoginSession, str, str]:
    """A browser session: (row, the cookie's session id, the CSRF token), both shown once."""
    now = utcnow()
    session.execute(delete(LoginSession).where(LoginSession.expires_at < now))
    raw, csrf = new_secret(), new_secret()
    login = LoginSession(
        user_id=user.id,
        token_hash=hash_token(raw),
        csrf_hash=hash_token(csrf),
        expires_at=now + timedelta(seconds=ttl_s),
        user_agent=(user_agent or "")[:300] or None,
    )
    session.add(login)
    session.flush()
    return login, raw, csrf


def end_session(session: Session, raw: str | None) -> None:
    if raw:
        session.execute(delete(LoginSession).where(LoginSession.token_hash == hash_token(raw)))


# --- password sign-in, rate limited --------------------------------------------------------


def password_login(
    session: Session, counter: FailureCounter, name: str, password: str, address: str
) -> User:
    """The user, when the name and password match and neither this user name from this
    address nor this address as a whole has used up its failed attempts.

    Failures count per (address, user name): someone failing as a colleague from their own
    address never locks the colleague out elsewhere, nor other users out from this address.
    An address also has a larger allowance for all names together, against trying many
    names from one place. The attempt is counted against both before the password is
    checked (so that 60 attempts at once get at most the limit of checks), and given back
    when it was right. One-time links and API tokens are never counted or refused here."""
    user_key = f"{address} {name.lower()}"
    keys = {"user": user_key, "address": address}
    blocked = counter.attempt(keys)
    if blocked is not None:
        kind, retry_after = blocked
        minutes = counter.window_s // 60
        if kind == "user":
            why = (
                f"for user {name} from {address} ({counter.limits['user']} within {minutes} "
                "minutes)"
            )
        else:
            why = (
                f"from {address} ({counter.limits['address']} within {minutes} minutes, all "
                "user names together)"
            )
        raise TooManyAttempts(
            f"too many failed sign-ins {why}: try again in {retry_after} s, or sign in with a "
            "one-time link (an admin makes one: `drivelab login-link`)",
            retry_after,
        )
    user = get_user_by_name(session, name)
    if user is None or not verify_password(user.password_hash if user else None, password):
        raise Unauthorized("wrong user name or password")  # the attempt stays counted
    counter.give_back({"address": address})
    counter.reset("user", user_key)
    if user.disabled:
        raise Forbidden(f"user {user.name} is disabled: ask an admin to enable it")
    if user.password_hash and needs_rehash(user.password_hash):
        user.password_hash = hash_password(password)
    return user


# --- one-time sign-in links ----------------------------------------------------------------


def create_link(
    session: Session, user: User, ttl_s: int, actor: User | str
) -> tuple[LoginLink, str]:
    """A single-use sign-in link for `user`: (row, its token, shown once)."""
    now = utcnow()
    session.execute(delete(LoginLink).where(LoginLink.expires_at < now - timedelta(days=1)))
    raw = new_secret()
    link = LoginLink(
        user_id=user.id, token_hash=hash_token(raw), expires_at=now + timedelta(seconds=ttl_s)
    )
    session.add(link)
    session.flush()
    audit.record(
        session,
        "login_link.created",
        actor,
        subject=f"user {user.name}",
        details={"expires_at": link.expires_at.isoformat()},
    )
    return link, raw


def redeem_link(session: Session, raw: str) -> User:
    """The link's user; the link is used up at once (atomically: it works exactly once).
    Never refused for failed sign-ins: a link is 256 random bits (no number of attempts
    guesses one), and it is the way in for a user whose password attempts are used up."""
    now = utcnow()
    digest = hash_token(raw)
    user_id = session.scalar(
        update(LoginLink)
        .where(
            LoginLink.token_hash == digest, LoginLink.used_at.is_(None), LoginLink.expires_at > now
        )
        .values(used_at=now)
        .returning(LoginLink.user_id)
    )
    if user_id is None:
        link = session.scalar(select(LoginLink).where(LoginLink.token_hash == digest))
        if link is None:
            problem = "is not a drivelab sign-in link (or it was mistyped)"
        elif link.used_at is not None:
            problem = "was already used: each link signs in once"
        else:
            problem = "has expired: links work for 15 minutes"
        raise Unauthorized(
            f"this sign-in link {problem}; get a new one with `drivelab login-link` or sign in "
            "with a password"
        )
    user = get_user(session, user_id)
    if user.disabled:
        raise Forbidden(f"user {user.name} is disabled: ask an admin to enable it")
    return user


# --- the first admin (`drivelab up`) -------------------------------------------------------


def ensure_admin(session: Session) -> User:
    """The first active admin, created (named `admin`, no password) when there is none."""
    admin = session.scalar(
        select(User).where(User.role == "admin", User.disabled.is_(False)).order_by(User.id)
    )
    if admin is not None:
        return admin
    name, n = "admin", 1
    while get_user_by_name(session, name) is not None:
        n += 1
        name = f"admin{n}"
    admin = User(name=name, role="admin")
    session.add(admin)
    session.flush()
    audit.record(
        session, "user.created", audit.SYSTEM, subject=f"user {name}", details={"role": "admin"}
    )
    return admin
