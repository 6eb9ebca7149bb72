// Placeholder while the page is built (issue 6); the route exists so links work.
export function SideBySidePage() {
  return (
    <div className="page">
      <h1>Side by side</h1>
    </div>
  );
}
