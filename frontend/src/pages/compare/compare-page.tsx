// Placeholder while the page is built (issue 6); the route exists so links work.
export function ComparePage() {
  return (
    <div className="page">
      <h1>Compare drives</h1>
    </div>
  );
}
