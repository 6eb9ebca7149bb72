from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Role = Literal["viewer", "reviewer", "admin"]
USER_NAME = r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,119}$"
MIN_PASSWORD = 10


class UserOut(BaseModel):
    id: int
    name: str
    role: Role
    disabled: bool
    has_password: bool = Field(description="False: the user signs in with one-time links only.")
    created_at: datetime


class UserCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=USER_NAME, description="letters, digits and . _ @ -")
    role: Role = "viewer"
    password: str | None = Field(
        None,
        min_length=MIN_PASSWORD,
        max_length=1000,
        description=f"At least {MIN_PASSWORD} characters; none: one-time links only.",
    )


class UserUpdate(BaseModel):
    """Only the fields sent change."""

    model_config = ConfigDict(extra="forbid")

    role: Role | None = None
    password: str | None = Field(None, min_length=MIN_PASSWORD, max_length=1000)
    disabled: bool | None = Field(
        None,
        strict=True,  # true or false: 0 and "no" are refused, not read as false
        description="A disabled user's sessions end and its tokens stop working.",
    )


class TokenCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field("api", min_length=1, max_length=80, description="What the token is for.")


class TokenOut(BaseModel):
    id: int
    user_id: int
    name: str
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None


class NewToken(TokenOut):
    token: str = Field(description="Shown once: send it as 'Authorization: Bearer <token>'.")


class Me(BaseModel):
    id: int
    name: str
    role: Role
    via: Literal["session", "token"] = Field(description="How this request was signed in.")


class LoginIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=120)
    password: str = Field(min_length=1, max_length=1000)


class OnceIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    token: str = Field(min_length=1, max_length=200, description="The `once` of a sign-in link.")


class LinkCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    user: str | None = Field(None, description="The user's name; yourself when omitted.")
    ttl_s: int = Field(900, ge=1, le=900, description="Seconds until the link expires (<= 15 min).")


class LinkOut(BaseModel):
    url: str = Field(description="Open it in a browser to sign in; it works once.")
    user: str
    expires_at: datetime
