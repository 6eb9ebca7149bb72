import { Link } from "react-router";
import { canWrite, useMe } from "../../api/auth/queries";
import { useRevokeShare, useShares } from "../../api/shares/queries";
import { ErrorBox } from "../../components/error-box/error-box";
import { formatFullDateTime } from "../../lib/format-utils";

/** The read-only links reviewers published (Compare: Publish read-only link): who made each,
 * when, which drives, how often it was opened; revoke ends a link for its readers. A link's
 * token is shown once when it is made and never stored, so it is not listed here. */
export function SharesPage() {
  const me = useMe();
  const shares = useShares();
  const revoke = useRevokeShare();
  const writer = canWrite(me.data);
  return (
    <div className="page">
      <div className="page-header">
        <h1>Shared links</h1>
        <Link to="/compare">Publish one from Compare</Link>
      </div>
      {shares.error && <ErrorBox error={shares.error} title="Could not list the shared links" />}
      {revoke.error && <ErrorBox error={revoke.error} title="Could not revoke the link" />}
      {shares.data && shares.data.length === 0 && (
        <p className="muted">No link published yet: Compare → Publish read-only link.</p>
      )}
      {shares.data && shares.data.length > 0 && (
        <div className="table-wrap">
          <table className="table" data-testid="shares-table">
            <thead>
              <tr>
                <th>Title</th>
                <th>Drives</th>
                <th>Made by</th>
                <th>Made</th>
                <th className="num">Views</th>
                <th>Last opened</th>
                <th>State</th>
              </tr>
            </thead>
            <tbody>
              {shares.data.map((s) => (
                <tr key={s.id} data-share={s.id}>
                  <td>{s.title}</td>
                  <td>{(s.drive_names ?? []).join(", ")}</td>
                  <td>{s.created_by ?? "a deleted user"}</td>
                  <td>{formatFullDateTime(s.created_at)}</td>
                  <td className="num" data-testid="share-views">
                    {s.views ?? 0}
                  </td>
                  <td>{s.last_viewed_at ? formatFullDateTime(s.last_viewed_at) : "never"}</td>
                  <td>
                    {s.revoked_at ? (
                      <span className="muted">revoked {formatFullDateTime(s.revoked_at)}</span>
                    ) : writer ? (
                      <button
                        type="button"
                        className="button"
                        disabled={revoke.isPending}
                        onClick={() => {
                          if (window.confirm(`Revoke “${s.title}”? Its readers lose access.`)) {
                            revoke.mutate(s.id);
                          }
                        }}
                      >
                        Revoke
                      </button>
                    ) : (
                      "live"
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
