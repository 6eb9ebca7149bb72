"""`/api/users`: users, their roles and API tokens (admins)."""

from __future__ import annotations

from fastapi import APIRouter

from backend.core.deps import Admin, SessionDep
from backend.core.jsonbody import FiniteJSONRoute
from backend.users import service
from backend.users.auth_router import new_token_out, token_out
from backend.users.models import User
from backend.users.schemas import NewToken, TokenCreate, TokenOut, UserCreate, UserOut, UserUpdate

router = APIRouter(prefix="/api/users", tags=["users"], route_class=FiniteJSONRoute)


def user_out(u: User) -> UserOut:
    return UserOut(
        id=u.id,
        name=u.name,
        role=u.role,  # type: ignore[arg-type]
        disabled=u.disabled,
        has_password=u.password_hash is not None,
        created_at=u.created_at,
    )


@router.get("", response_model=list[UserOut])
def list_users(session: SessionDep, _admin: Admin) -> list[UserOut]:
    return [user_out(u) for u in service.list_users(session)]


@router.post("", response_model=UserOut, status_code=201)
def create_user(data: UserCreate, session: SessionDep, admin: Admin) -> UserOut:
    """Add a user with a role (viewer, reviewer or admin) and, optionally, a password."""
    return user_out(service.create_user(session, data, admin))


@router.patch("/{user_id}", response_model=UserOut)
def update_user(user_id: int, data: UserUpdate, session: SessionDep, admin: Admin) -> UserOut:
    """Change a user's role or password, or disable (enable) it. The last active admin stays
    an admin."""
    return user_out(service.update_user(session, user_id, data, admin))


@router.get("/{user_id}/tokens", response_model=list[TokenOut])
def list_tokens(user_id: int, session: SessionDep, _admin: Admin) -> list[TokenOut]:
    return [token_out(t) for t in service.list_tokens(session, service.get_user(session, user_id))]


@router.post("/{user_id}/tokens", response_model=NewToken, status_code=201)
def create_token(user_id: int, data: TokenCreate, session: SessionDep, admin: Admin) -> NewToken:
    """Issue an API token for a user (shown once, stored hashed)."""
    user = service.get_user(session, user_id)
    return new_token_out(*service.create_token(session, user, data.name, admin))


@router.delete("/{user_id}/tokens/{token_id}", status_code=204)
def revoke_token(user_id: int, token_id: int, session: SessionDep, admin: Admin) -> None:
    service.revoke_token(session, service.get_user(session, user_id), token_id, admin)
