import { useState, type FormEvent } from "react";
import { useSearchParams } from "react-router";
import { useAudit } from "../../api/audit/queries";
import { useMe } from "../../api/auth/queries";
import {
  useCreateToken,
  useCreateUser,
  useRevokeToken,
  useUpdateUser,
  useUserTokens,
  useUsers,
} from "../../api/users/queries";
import type { NewUserToken, UserRow, UserToken } from "../../api/users/types";
import { Badge } from "../../components/badge/badge";
import { ErrorBox } from "../../components/error-box/error-box";
import { FormField } from "../../components/form-field/form-field";
import { TableStateRow } from "../../components/table-states/table-states";
import { TimeText } from "../../components/time-text/time-text";
import { apiFieldError } from "../catalog/catalog-utils";
import {
  ROLES,
  auditSubject,
  formatDetails,
  isAdmin,
  newUserPayload,
  olderCursor,
  parseDriveFilter,
  tokenActive,
  type NewUserValues,
} from "./admin-utils";
import "../../components/form-field/form-field.css";
import "../../components/record-form/record-form.css";
import { BenchesSection } from "./bench-devices";
import { CopyLine } from "./copy-line";
import "./admin-page.css";

type Tab = "users" | "benches" | "audit";

const TABS: { id: Tab; label: string }[] = [
  { id: "users", label: "Users" },
  { id: "benches", label: "Benches" },
  { id: "audit", label: "Audit log" },
];

export function AdminPage() {
  const me = useMe();
  const [params, setParams] = useSearchParams();
  const asked = params.get("tab");
  const tab: Tab = asked === "audit" || asked === "benches" ? asked : "users";

  if (me.isPending) {
    return (
      <div className="page" aria-busy="true">
        <p className="muted">Loading…</p>
      </div>
    );
  }
  if (me.isError) {
    return (
      <div className="page">
        <ErrorBox error={me.error} title="Could not tell who is signed in" />
      </div>
    );
  }
  if (!isAdmin(me.data)) {
    return (
      <div className="page">
        <div className="page-header">
          <h1>Admin</h1>
        </div>
        <p className="admin-page__note" role="note">
          Admins only: users, API tokens and the audit log are managed by admins. You are signed
          in as {me.data.name} ({me.data.role}); ask an admin if you need a change.
        </p>
      </div>
    );
  }

  return (
    <div className="page">
      <div className="page-header">
        <h1>Admin</h1>
        <span className="muted">Users, their API tokens, benches and their devices, the audit log</span>
      </div>
      <div className="admin-page__tabs" role="tablist" aria-label="Admin sections">
        {TABS.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`admin-tab-${t.id}`}
            aria-selected={tab === t.id}
            aria-controls={`admin-panel-${t.id}`}
            className={tab === t.id ? "admin-page__tab admin-page__tab--active" : "admin-page__tab"}
            onClick={() => setParams(t.id === "users" ? {} : { tab: t.id })}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`admin-panel-${tab}`} aria-labelledby={`admin-tab-${tab}`}>
        {tab === "users" ? (
          <UsersSection meId={me.data.id} />
        ) : tab === "benches" ? (
          <BenchesSection />
        ) : (
          <AuditSection />
        )}
      </div>
    </div>
  );
}

// --- Users -----------------------------------------------------------------------------

const USER_COLUMNS = 6;

function UsersSection({ meId }: { meId: number }) {
  const users = useUsers();
  const [adding, setAdding] = useState(false);
  return (
    <section className="section" aria-labelledby="users-heading">
      <div className="section__header">
        <h2 id="users-heading">Users</h2>
        <button type="button" className="button" aria-expanded={adding} onClick={() => setAdding((a) => !a)}>
          {adding ? "Close" : "Add a user"}
        </button>
      </div>
      {adding && (
        <div className="section__body admin-page__form-wrap">
          <AddUserForm />
        </div>
      )}
      {users.isError && <ErrorBox error={users.error} title="Could not load the users" />}
      <div className="table-wrap">
        <table className="table admin-page__users">
          <thead>
            <tr>
              <th>Name</th>
              <th>Role</th>
              <th>Status</th>
              <th>Password</th>
              <th>Created</th>
              <th>
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {users.isPending && <TableStateRow colSpan={USER_COLUMNS}>Loading users…</TableStateRow>}
            {users.data?.length === 0 && <TableStateRow colSpan={USER_COLUMNS}>No users yet.</TableStateRow>}
            {users.data?.map((u) => <UserRows key={u.id} user={u} isMe={u.id === meId} />)}
          </tbody>
        </table>
      </div>
    </section>
  );
}

const EMPTY_USER: NewUserValues = { name: "", role: "viewer", password: "" };

function AddUserForm() {
  const create = useCreateUser();
  const [values, setValues] = useState<NewUserValues>(EMPTY_USER);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<unknown>(null);
  const [added, setAdded] = useState<string | null>(null);

  const set = (name: keyof NewUserValues) => (e: { target: { value: string } }) =>
    setValues((prev) => ({ ...prev, [name]: e.target.value }));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setAdded(null);
    setFormError(null);
    const { payload, errors: local } = newUserPayload(values);
    setErrors(local);
    if (Object.keys(local).length > 0) return;
    try {
      const user = await create.mutateAsync(payload);
      setValues(EMPTY_USER);
      setAdded(user.name);
    } catch (error) {
      // What was typed stays; the api's message goes next to its field, or above the button.
      const { field, message } = apiFieldError(error);
      if (field && field in EMPTY_USER) setErrors({ [field]: message });
      else setFormError(error);
    }
  };

  return (
    <form className="record-form" aria-label="Add a user" onSubmit={(e) => void submit(e)} noValidate>
      <fieldset className="record-form__fields" disabled={create.isPending}>
        <FormField label="Name" help="Letters, digits and . _ @ -" error={errors.name}>
          <input name="name" value={values.name} onChange={set("name")} autoComplete="off" />
        </FormField>
        <FormField label="Role" error={errors.role}>
          <select name="role" value={values.role} onChange={set("role")}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </FormField>
        <FormField
          label="Password (optional)"
          help="At least 10 characters; none: the user signs in with one-time links only"
          error={errors.password}
        >
          <input
            name="password"
            type="password"
            value={values.password}
            onChange={set("password")}
            autoComplete="new-password"
          />
        </FormField>
      </fieldset>
      {formError !== null && <ErrorBox error={formError} title="Not added" />}
      {added && (
        <p className="admin-page__ok" role="status">
          Added user {added}.
        </p>
      )}
      <div>
        <button type="submit" className="button button--primary" disabled={create.isPending}>
          {create.isPending ? "Adding…" : "Add user"}
        </button>
      </div>
    </form>
  );
}

/** A user's row, and under it its errors and (when opened) its tokens. */
function UserRows({ user, isMe }: { user: UserRow; isMe: boolean }) {
  const update = useUpdateUser();
  // The role chosen and not yet saved (null: none); it stays chosen when the api refuses it.
  const [draftRole, setDraftRole] = useState<UserRow["role"] | null>(null);
  const [showTokens, setShowTokens] = useState(false);
  const role = draftRole ?? user.role;
  const roleChanged = role !== user.role;

  const saveRole = () =>
    update.mutate({ id: user.id, changes: { role } }, { onSuccess: () => setDraftRole(null) });
  const setDisabled = (disabled: boolean, done?: () => void) =>
    update.mutate({ id: user.id, changes: { disabled } }, { onSettled: done });

  return (
    <>
      <tr className={user.disabled ? "admin-page__user--disabled" : undefined}>
        <td>
          <span className="admin-page__name">
            {user.name}
            {isMe && <span className="muted">(you)</span>}
          </span>
        </td>
        <td>
          <span className="admin-page__role">
            <select
              className="form-input"
              aria-label={`Role of ${user.name}`}
              value={role}
              disabled={update.isPending}
              onChange={(e) => {
                update.reset();
                setDraftRole(ROLES.find((r) => r === e.target.value) ?? null);
              }}
            >
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
            {roleChanged && (
              <>
                <button
                  type="button"
                  className="button button--primary"
                  disabled={update.isPending}
                  onClick={saveRole}
                >
                  Save role
                </button>
                <button
                  type="button"
                  className="button"
                  onClick={() => {
                    update.reset();
                    setDraftRole(null);
                  }}
                >
                  Cancel
                </button>
              </>
            )}
          </span>
        </td>
        <td>
          {user.disabled ? <Badge tone="danger">disabled</Badge> : <Badge tone="ok">active</Badge>}
        </td>
        <td>{user.has_password ? "yes" : <span className="muted">no: links only</span>}</td>
        <td>
          <TimeText iso={user.created_at} />
        </td>
        <td className="admin-page__actions">
          <button
            type="button"
            className="button"
            aria-expanded={showTokens}
            aria-label={`API tokens of ${user.name}`}
            onClick={() => setShowTokens((s) => !s)}
          >
            {showTokens ? "Hide tokens" : "Tokens"}
          </button>
          {user.disabled ? (
            <button
              type="button"
              className="button"
              disabled={update.isPending}
              aria-label={`Enable ${user.name}`}
              onClick={() => setDisabled(false)}
            >
              Enable
            </button>
          ) : (
            <ConfirmAction
              action="Disable"
              what={user.name}
              title="Ends the user's sessions; its tokens stop working"
              pending={update.isPending}
              onAsk={update.reset}
              onConfirm={(done) => setDisabled(true, done)}
            />
          )}
        </td>
      </tr>
      {update.isError && (
        <tr className="admin-page__detail">
          <td colSpan={USER_COLUMNS}>
            <ErrorBox error={update.error} title={`Could not change ${user.name}`} />
          </td>
        </tr>
      )}
      {showTokens && (
        <tr className="admin-page__detail">
          <td colSpan={USER_COLUMNS}>
            <TokensPanel user={user} />
          </td>
        </tr>
      )}
    </>
  );
}

/**
 * A button that acts only once confirmed: "Revoke" turns into "Revoke it" and "Keep". The
 * accessible names say what it acts on ("Revoke token api of bob").
 */
function ConfirmAction({
  action,
  what,
  title,
  pending,
  onAsk,
  onConfirm,
}: {
  action: string;
  what: string;
  title?: string;
  pending: boolean;
  onAsk: () => void;
  onConfirm: (done: () => void) => void;
}) {
  const [confirming, setConfirming] = useState(false);
  if (!confirming) {
    return (
      <button
        type="button"
        className="button"
        aria-label={`${action} ${what}`}
        title={title}
        onClick={() => {
          onAsk();
          setConfirming(true);
        }}
      >
        {action}
      </button>
    );
  }
  return (
    <>
      <button
        type="button"
        className="button button--danger"
        disabled={pending}
        aria-label={`Confirm: ${action.toLowerCase()} ${what}`}
        onClick={() => onConfirm(() => setConfirming(false))}
      >
        {action} it
      </button>
      <button type="button" className="button" onClick={() => setConfirming(false)}>
        Keep
      </button>
    </>
  );
}

// --- API tokens ------------------------------------------------------------------------

function TokensPanel({ user }: { user: UserRow }) {
  const tokens = useUserTokens(user.id);
  const create = useCreateToken();
  const [name, setName] = useState("api");
  const [issued, setIssued] = useState<NewUserToken | null>(null);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setIssued(null);
    create.mutate({ userId: user.id, name: name.trim() }, { onSuccess: (t) => setIssued(t) });
  };

  return (
    <div className="admin-page__tokens" aria-label={`API tokens of ${user.name}`} role="region">
      <h3>API tokens of {user.name}</h3>
      {tokens.isError && <ErrorBox error={tokens.error} title="Could not load the tokens" />}
      <table className="table">
        <thead>
          <tr>
            <th>Name</th>
            <th>Created</th>
            <th>Last used</th>
            <th>Status</th>
            <th>
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {tokens.isPending && <TableStateRow colSpan={5}>Loading tokens…</TableStateRow>}
          {tokens.data?.length === 0 && <TableStateRow colSpan={5}>No API tokens.</TableStateRow>}
          {tokens.data?.map((t) => <TokenRow key={t.id} user={user} token={t} />)}
        </tbody>
      </table>
      {issued && <NewTokenBox token={issued} onDone={() => setIssued(null)} />}
      <form className="admin-page__inline-form" aria-label={`Issue a token for ${user.name}`} onSubmit={submit}>
        <FormField label="Token name" help="What the token is for (a script, a bench host)">
          <input name="token_name" value={name} onChange={(e) => setName(e.target.value)} autoComplete="off" />
        </FormField>
        <div className="admin-page__inline-actions">
          <button type="submit" className="button button--primary" disabled={create.isPending || !name.trim()}>
            {create.isPending ? "Issuing…" : "Issue token"}
          </button>
        </div>
      </form>
      {create.isError && <ErrorBox error={create.error} title="No token issued" />}
    </div>
  );
}

function NewTokenBox({ token, onDone }: { token: NewUserToken; onDone: () => void }) {
  return (
    <div className="admin-page__new-token" role="status">
      <p>
        <strong>Token {token.name} issued.</strong> Copy it now: it will not be shown again. Send
        it as <code>Authorization: Bearer &lt;token&gt;</code>.
      </p>
      <CopyLine text={token.token} refused="select the token and copy it" onDone={onDone}>
        <input
          readOnly
          className="form-input mono"
          value={token.token}
          aria-label="New API token"
          onFocus={(e) => e.target.select()}
        />
      </CopyLine>
    </div>
  );
}

function TokenRow({ user, token }: { user: UserRow; token: UserToken }) {
  const revoke = useRevokeToken();
  const active = tokenActive(token);
  return (
    <>
      <tr>
        <td>{token.name}</td>
        <td>
          <TimeText iso={token.created_at} />
        </td>
        <td>
          {token.last_used_at ? <TimeText iso={token.last_used_at} /> : <span className="muted">never</span>}
        </td>
        <td>
          {active ? (
            <Badge tone="ok">active</Badge>
          ) : (
            <span className="admin-page__revoked">
              <Badge tone="neutral">revoked</Badge> <TimeText iso={token.revoked_at} />
            </span>
          )}
        </td>
        <td className="admin-page__actions">
          {active && (
            <ConfirmAction
              action="Revoke"
              what={`token ${token.name} of ${user.name}`}
              pending={revoke.isPending}
              onAsk={revoke.reset}
              onConfirm={(done) =>
                revoke.mutate({ userId: user.id, tokenId: token.id }, { onSettled: done })
              }
            />
          )}
        </td>
      </tr>
      {revoke.isError && (
        <tr>
          <td colSpan={5}>
            <ErrorBox error={revoke.error} title={`Could not revoke token ${token.name}`} />
          </td>
        </tr>
      )}
    </>
  );
}

// --- Audit log -------------------------------------------------------------------------

const AUDIT_PAGE = 50;
const AUDIT_COLUMNS = 5;
/** Actions drivelab records, offered while typing (any action can be typed). */
const KNOWN_ACTIONS = [
  "bench.token_created",
  "bench.token_revoked",
  "bench.token_rotated",
  "drive.changed",
  "drive.registered",
  "login_link.created",
  "price.corrected",
  "price.deleted",
  "retention.changed",
  "retention.compacted",
  "run.cancelled",
  "run.queued",
  "run.resumed",
  "step.started",
  "user.created",
  "user.disabled",
  "user.enabled",
  "user.password_changed",
  "user.role_changed",
  "user_token.created",
  "user_token.revoked",
];

function AuditSection() {
  const [actionText, setActionText] = useState("");
  const [driveText, setDriveText] = useState("");
  const [driveError, setDriveError] = useState<string | null>(null);
  const [applied, setApplied] = useState<{ action: string | null; driveId: number | null }>({
    action: null,
    driveId: null,
  });
  // The before_id of every page opened going back; empty: the newest entries.
  const [cursors, setCursors] = useState<number[]>([]);
  const beforeId = cursors.at(-1) ?? null;
  const audit = useAudit({ limit: AUDIT_PAGE, ...applied, beforeId });
  const events = audit.data ?? [];
  const older = audit.isPlaceholderData ? null : olderCursor(events, AUDIT_PAGE);
  const filtered = applied.action !== null || applied.driveId !== null;

  const apply = (event: FormEvent) => {
    event.preventDefault();
    const drive = parseDriveFilter(driveText);
    setDriveError(drive.error);
    if (drive.error) return;
    setApplied({ action: actionText.trim() || null, driveId: drive.driveId });
    setCursors([]);
  };
  const clear = () => {
    setActionText("");
    setDriveText("");
    setDriveError(null);
    setApplied({ action: null, driveId: null });
    setCursors([]);
  };

  return (
    <section className="section" aria-labelledby="audit-heading">
      <div className="section__header">
        <h2 id="audit-heading">Audit log</h2>
        <span className="muted">Destructive and security-relevant actions, newest first</span>
      </div>
      <div className="section__body admin-page__form-wrap">
        <form className="admin-page__inline-form" aria-label="Filter the audit log" onSubmit={apply} noValidate>
          <FormField label="Action">
            <input
              name="action"
              list="audit-actions"
              value={actionText}
              placeholder="any, e.g. user.role_changed"
              autoComplete="off"
              onChange={(e) => setActionText(e.target.value)}
            />
          </FormField>
          <datalist id="audit-actions">
            {KNOWN_ACTIONS.map((a) => (
              <option key={a} value={a} />
            ))}
          </datalist>
          <FormField label="Drive id" error={driveError}>
            <input
              name="drive_id"
              inputMode="numeric"
              value={driveText}
              placeholder="any"
              autoComplete="off"
              onChange={(e) => setDriveText(e.target.value)}
            />
          </FormField>
          <div className="admin-page__inline-actions">
            <button type="submit" className="button button--primary">
              Filter
            </button>
            {filtered && (
              <button type="button" className="button" onClick={clear}>
                Clear
              </button>
            )}
          </div>
        </form>
      </div>
      {audit.isError && <ErrorBox error={audit.error} title="Could not load the audit log" />}
      <div className="table-wrap" aria-busy={audit.isFetching}>
        <table className="table admin-page__audit">
          <thead>
            <tr>
              <th>Time</th>
              <th>Action</th>
              <th>Actor</th>
              <th>Subject</th>
              <th>Details</th>
            </tr>
          </thead>
          <tbody>
            {audit.isPending && <TableStateRow colSpan={AUDIT_COLUMNS}>Loading the audit log…</TableStateRow>}
            {audit.isSuccess && events.length === 0 && (
              <TableStateRow colSpan={AUDIT_COLUMNS}>
                {cursors.length > 0
                  ? "No older entries."
                  : filtered
                    ? "No entries match these filters."
                    : "Nothing recorded yet."}
              </TableStateRow>
            )}
            {events.map((e) => {
              const details = formatDetails(e.details);
              return (
                <tr key={e.id}>
                  <td>
                    <TimeText iso={e.at} withDate />
                  </td>
                  <td className="mono">{e.action}</td>
                  <td>
                    {e.actor_name}
                    {e.actor_kind !== "user" && <span className="cell-sub">{e.actor_kind}</span>}
                  </td>
                  <td>{auditSubject(e) || <span className="muted">—</span>}</td>
                  <td className="mono admin-page__details" title={details}>
                    {details || <span className="muted">—</span>}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <div className="section__body admin-page__paging">
        <span className="muted" role="status">
          {audit.isFetching && !audit.isPending
            ? "Loading…"
            : cursors.length > 0
              ? `Older entries, before #${beforeId}`
              : "Newest entries"}
        </span>
        <button
          type="button"
          className="button"
          disabled={cursors.length === 0}
          onClick={() => setCursors([])}
        >
          Newest
        </button>
        <button
          type="button"
          className="button"
          disabled={cursors.length === 0}
          onClick={() => setCursors((c) => c.slice(0, -1))}
        >
          Newer
        </button>
        <button
          type="button"
          className="button"
          disabled={older === null}
          onClick={() => older !== null && setCursors((c) => [...c, older])}
        >
          Older
        </button>
      </div>
    </section>
  );
}
