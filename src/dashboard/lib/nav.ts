/**
 * `route(path)`: moves the dashboard to `#/<path>` (pages link to each other without importing the router).
 */
export function route(path: string): void {
  location.hash = `#/${path}`;
}
