// The edge's pure rules (src/core/edge-cache.ts): which requests have a key, which answers
// may be stored, which requests purge, and the tags an answer carries.
import { describe, expect, it } from 'vitest';
import {
  edgeKey,
  edgeMode,
  edgeTags,
  isEdgePath,
  mayPurge,
  mayStore,
  newTrace,
  type EdgeTrace,
} from '../../../src/core/edge-cache';

const trace = (over: Partial<EdgeTrace>): EdgeTrace => ({ ...newTrace(), routed: true, ...over });

describe('edge rules', () => {
  it('a key only for an anonymous GET without a query string: the url without it', () => {
    expect(edgeKey(new Request('http://h/u/a/d/x'))).toBe('http://h/u/a/d/x');
    expect(edgeKey(new Request('http://h/u/a/d/x?v=1'))).toBeNull();
    expect(edgeKey(new Request('http://h/u/a/d/x', { headers: { Authorization: 'Bearer t' } }))).toBeNull();
    expect(edgeKey(new Request('http://h/u/a/d/x', { method: 'POST' }))).toBeNull();
  });

  it('only EDGE_CACHE "workers" or "local" turn it on', () => {
    expect(edgeMode({})).toBe('off');
    expect(edgeMode({ EDGE_CACHE: 'yes' })).toBe('off');
    expect(edgeMode({ EDGE_CACHE: 'workers' })).toBe('workers');
    expect(edgeMode({ EDGE_CACHE: 'local' })).toBe('local');
  });

  it('stored: a 200 of a cache route that read accounts only (none untracked)', () => {
    const owners = new Set([3]);
    expect(mayStore(trace({ route: 'cache', owners }), 200)).toBe(true);
    expect(mayStore(trace({ route: 'cache', owners }), 404)).toBe(false);
    expect(mayStore(trace({ route: 'cache', owners }), 304)).toBe(false);
    expect(mayStore(trace({ route: null, owners }), 200)).toBe(false);
    expect(mayStore(trace({ route: 'cache', owners, untracked: true }), 200)).toBe(false);
    expect(mayStore(trace({ route: 'cache' }), 200)).toBe(false);
    expect(mayStore(trace({ route: 'cache', owners, routed: false }), 200)).toBe(false);
  });

  it('purged by every routed request that may change something, unless it failed on its input', () => {
    expect(mayPurge('POST', trace({}), 204)).toBe(true);
    expect(mayPurge('DELETE', trace({}), 500)).toBe(true);
    expect(mayPurge('PUT', trace({}), 409)).toBe(false);
    expect(mayPurge('POST', trace({ route: 'keep' }), 200)).toBe(false);
    expect(mayPurge('GET', trace({}), 200)).toBe(false);
    expect(mayPurge('POST', trace({ routed: false }), 200)).toBe(false);
  });

  it('tags: one per account, in order; the paths the edge keeps by their patterns', () => {
    expect(edgeTags([12, 3])).toEqual(['o3', 'o12']);
    expect(isEdgePath('/u/a/d/x', [/^\/u\/[^/]+\/d\/[^/]+$/])).toBe(true);
    expect(isEdgePath('/v1/vis/docs', [/^\/u\/[^/]+\/d\/[^/]+$/])).toBe(false);
  });
});
