import { useState, type ReactNode } from "react";

/** A secret shown once (a token, a worker command): what shows it, then Copy and Done; when
 * the browser refuses the clipboard, `refused` says what to select and copy by hand. */
export function CopyLine({
  text,
  refused,
  onDone,
  children,
}: {
  text: string;
  refused: string;
  onDone: () => void;
  children?: ReactNode;
}) {
  const [copied, setCopied] = useState<boolean | null>(null);
  const copy = () =>
    void (navigator.clipboard?.writeText(text) ?? Promise.reject()).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  return (
    <>
      <div className="admin-page__token-line">
        {children}
        <button type="button" className="button" onClick={copy}>
          {copied ? "Copied" : "Copy"}
        </button>
        <button type="button" className="button" onClick={onDone}>
          Done
        </button>
      </div>
      {copied === false && <p className="muted">The browser refused the clipboard: {refused}.</p>}
    </>
  );
}
