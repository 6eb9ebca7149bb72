// Placeholder while the page is built (issue 6); the route exists so links work.
export function CatalogPage() {
  return (
    <div className="page">
      <h1>Catalog</h1>
    </div>
  );
}
