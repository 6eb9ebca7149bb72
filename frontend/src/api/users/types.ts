import type { components } from "../schema";

type Schemas = components["schemas"];

/** A user as admins see it (GET /api/users). */
export type UserRow = Schemas["UserOut"];
export type UserRole = UserRow["role"];
export type UserCreate = Schemas["UserCreate"];
export type UserUpdate = Schemas["UserUpdate"];
/** An API token of a user; the token itself is never listed. */
export type UserToken = Schemas["TokenOut"];
/** A token just issued: `token` is shown this once. */
export type NewUserToken = Schemas["NewToken"];
