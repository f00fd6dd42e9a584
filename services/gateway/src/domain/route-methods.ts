/**
 * The gateway's routes by path pattern and their methods, so a request for a known path under a method it does
 * not have is answered 405 with the methods it has (RFC 9110 §15.5.6), instead of 404.
 */
export class RouteMethods {
  private readonly routes: Array<{ pattern: RegExp; staticSegments: number; methods: Set<string> }> = [];

  /** `url` as the router has it (`/v1/servers/:id`); `method` one or several. */
  add(url: string, method: string | string[]): void {
    const source = `^${url
      .split('/')
      .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment === '*' ? '.*' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/')}$`;
    let route = this.routes.find((entry) => entry.pattern.source === source);
    if (!route) {
      route = {
        pattern: new RegExp(source),
        staticSegments: url.split('/').filter((segment) => segment && !segment.startsWith(':') && segment !== '*').length,
        methods: new Set(),
      };
      this.routes.push(route);
    }
    for (const name of Array.isArray(method) ? method : [method]) route.methods.add(name.toUpperCase());
  }

  /**
   * The methods a path has, sorted; empty when no route has the path. Where several routes match (a static
   * /v1/servers/plans and a parametric /v1/servers/:id), the most specific is the path's resource, as the
   * document describes it.
   */
  allowedFor(path: string): string[] {
    const matching = this.routes.filter((route) => route.pattern.test(path));
    const mostSpecific = Math.max(...matching.map((route) => route.staticSegments));
    const methods = new Set<string>();
    for (const route of matching) if (route.staticSegments === mostSpecific) for (const method of route.methods) methods.add(method);
    return [...methods].sort();
  }
}
