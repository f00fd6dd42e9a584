/**
 * The gateway's routes by path pattern and their methods, so a request for a known path under a method it does
 * not have is answered 405 with the methods it has (RFC 9110 §15.5.6), instead of 404.
 */
export class RouteMethods {
  private readonly routes: Array<{ pattern: RegExp; methods: Set<string> }> = [];

  /** `url` as the router has it (`/v1/servers/:id`); `method` one or several. */
  add(url: string, method: string | string[]): void {
    const source = `^${url
      .split('/')
      .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment === '*' ? '.*' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/')}/?$`;
    let route = this.routes.find((entry) => entry.pattern.source === source);
    if (!route) {
      route = { pattern: new RegExp(source), methods: new Set() };
      this.routes.push(route);
    }
    for (const name of Array.isArray(method) ? method : [method]) route.methods.add(name.toUpperCase());
  }

  /** The methods a path has, sorted; empty when no route has the path. */
  allowedFor(path: string): string[] {
    const methods = new Set<string>();
    for (const route of this.routes) if (route.pattern.test(path)) for (const method of route.methods) methods.add(method);
    return [...methods].sort();
  }
}
