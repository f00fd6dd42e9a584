/**
 * Used here only for immutable store documents (insert-only collections), so a cached value can never be stale:
 * freshness comes from probing the next `_id`.
 */
export { BoundedCache } from '@mtx/shared/bounded-cache';
