"""`/api/auth`: sign in (password or one-time link), sign out, who am I, one's own API tokens,
and one-time sign-in links (admins).

A browser session is a random id in an HttpOnly, SameSite=Lax cookie (Secure beyond loopback)
whose sha256 is stored with an expiry; a second, readable cookie carries the CSRF token that
the web app echoes in X-CSRF-Token on every unsafe request.
"""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from backend.core.deps import (
    CSRF_COOKIE,
    SESSION_COOKIE,
    Admin,
    AppState,
    CurrentUser,
    OptionalPrincipal,
    SessionDep,
    SignedIn,
    StateDep,
)
from backend.core.errors import NotFound
from backend.core.jsonbody import FiniteJSONRoute
from backend.core.ratelimit import FailureCounter
from backend.users import service
from backend.users.models import ApiToken, User
from backend.users.schemas import (
    LinkCreate,
    LinkOut,
    LoginIn,
    Me,
    NewToken,
    OnceIn,
    TokenCreate,
    TokenOut,
)

router = APIRouter(prefix="/api/auth", tags=["auth"], route_class=FiniteJSONRoute)


def login_counter(state: AppState) -> FailureCounter:
    s = state.settings
    return FailureCounter(
        state.redis,
        f"drivelab:{state.channels}:login",
        {"user": s.login_max_failures, "address": s.login_max_failures_per_address},
        s.login_window_s,
    )


def client_address(request: Request) -> str:
    """The client's address: the peer's, or, from a proxy in DRIVELAB_TRUSTED_PROXIES, the
    one it forwarded (X-Forwarded-For; backend.main installs the middleware that reads it)."""
    return request.client.host if request.client else "unknown"


def public_base(request: Request, state: AppState) -> str:
    """The address people reach drivelab at: DRIVELAB_PUBLIC_URL, or this request's."""
    return (state.settings.public_url or str(request.base_url)).rstrip("/")


def me_out(user: User, via: str) -> Me:
    return Me(id=user.id, name=user.name, role=user.role, via=via)  # type: ignore[arg-type]


def token_out(t: ApiToken) -> TokenOut:
    return TokenOut(
        id=t.id,
        user_id=t.user_id,
        name=t.name,
        created_at=t.created_at,
        last_used_at=t.last_used_at,
        revoked_at=t.revoked_at,
    )


def new_token_out(t: ApiToken, raw: str) -> NewToken:
    return NewToken(**token_out(t).model_dump(), token=raw)


def _sign_in(
    request: Request, response: Response, session: SessionDep, state: AppState, user: User
) -> Me:
    settings = state.settings
    _login, raw, csrf = service.create_session(
        session, user, settings.session_ttl_s, request.headers.get("user-agent")
    )
    common = {
        "max_age": settings.session_ttl_s,
        "samesite": "lax",
        "secure": settings.secure_cookies,
        "path": "/",
    }
    response.set_cookie(SESSION_COOKIE, raw, httponly=True, **common)  # type: ignore[arg-type]
    response.set_cookie(CSRF_COOKIE, csrf, httponly=False, **common)  # type: ignore[arg-type]
    return me_out(user, "session")


@router.post(
    "/login",
    response_model=Me,
    responses={429: {"description": "Too many failed sign-ins; see Retry-After."}},
)
def login(
    data: LoginIn, request: Request, response: Response, session: SessionDep, state: StateDep
) -> Me:
    """Sign in with a name and password: sets the session cookie and the CSRF cookie. After 5
    failures within 5 minutes for one user name from one address (or 100 from one address,
    all names together), further attempts from there get 429 until the window ends; the
    user signs in from elsewhere, with a one-time link or an API token meanwhile."""
    user = service.password_login(
        session, login_counter(state), data.name, data.password, client_address(request)
    )
    return _sign_in(request, response, session, state, user)


@router.post("/once", response_model=Me)
def login_once(
    data: OnceIn, request: Request, response: Response, session: SessionDep, state: StateDep
) -> Me:
    """Sign in with a one-time link's token (`/login?once=TOKEN`, which the web app posts
    here). A link works once and expires after 15 minutes."""
    user = service.redeem_link(session, data.token)
    return _sign_in(request, response, session, state, user)


@router.post("/logout", status_code=204)
def logout(
    request: Request, response: Response, session: SessionDep, _p: OptionalPrincipal
) -> None:
    """End this browser's session and clear its cookies (nothing to do for an API token)."""
    service.end_session(session, request.cookies.get(SESSION_COOKIE))
    response.delete_cookie(SESSION_COOKIE, path="/")
    response.delete_cookie(CSRF_COOKIE, path="/")


@router.get("/me", response_model=Me)
def me(principal: SignedIn) -> Me:
    """The signed-in user and how this request was signed in; 401 when nobody is."""
    assert principal.user is not None
    return me_out(principal.user, principal.via)


@router.post("/links", response_model=LinkOut, status_code=201)
def create_link(
    data: LinkCreate, request: Request, session: SessionDep, state: StateDep, admin: Admin
) -> LinkOut:
    """A one-time sign-in link for a user (yourself by default): single use, expires within
    15 minutes. `drivelab login-link` prints one."""
    user = admin
    if data.user is not None:
        found = service.get_user_by_name(session, data.user)
        if found is None:
            raise NotFound(f"no user named {data.user}: see GET /api/users", field="user")
        user = found
    link, raw = service.create_link(session, user, data.ttl_s, admin)
    return LinkOut(
        url=f"{public_base(request, state)}/login?once={raw}",
        user=user.name,
        expires_at=link.expires_at,
    )


@router.get("/tokens", response_model=list[TokenOut])
def my_tokens(session: SessionDep, user: CurrentUser) -> list[TokenOut]:
    """Your API tokens (never the tokens themselves: they are shown once)."""
    return [token_out(t) for t in service.list_tokens(session, user)]


@router.post("/tokens", response_model=NewToken, status_code=201)
def create_my_token(data: TokenCreate, session: SessionDep, user: CurrentUser) -> NewToken:
    """A new API token with your role, for scripts and the CLI: shown once, stored hashed."""
    return new_token_out(*service.create_token(session, user, data.name, user))


@router.delete("/tokens/{token_id}", status_code=204)
def revoke_my_token(token_id: int, session: SessionDep, user: CurrentUser) -> None:
    """Revoke one of your API tokens; it stops working at once."""
    service.revoke_token(session, user, token_id, user)
