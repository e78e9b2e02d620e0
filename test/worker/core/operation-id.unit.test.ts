// OperationIds are derived from method and path alone (src/core/operation-id.ts): the short
// form, and collisions resolved by the colliding paths, never by the table's order.
import { describe, expect, it } from 'vitest';
import { operationIdOf, operationIds } from '../../../src/core/operation-id';
import type { Method } from '../../../src/core/route-spec';

const route = (line: string) => {
  const [method, path] = line.split(' ') as [string, string];
  return { method: method.toLowerCase() as Method, path };
};
const idsOf = (lines: string[]) => [...operationIds(lines.map(route)).values()];

describe('operationIds are derived from method and path', () => {
  it('the short form: v1 and kind namespaces left out, a collection before its parameter singular', () => {
    expect(operationIdOf('get', '/v1/vis/docs/:doc/content')).toBe('getDocContent');
    expect(operationIdOf('put', '/v1/admin/groups/:group/roles/:role/:user')).toBe('putAdminGroupRoleUser');
    expect(operationIdOf('get', '/v1/users/:owner/vis/docs/:doc/content')).toBe('getOwnerDocContent');
    expect(operationIdOf('get', '/v1/code/jobs/:job/code/:file')).toBe('getJobCodeFile');
    expect(operationIdOf('get', '/v1/u/:user/d/:doc/v/:var/txt')).toBe('getUserDocVarTxt');
    expect(operationIdOf('post', '/v1/vis/docs/:doc/threads/:topic/comments/:path+/msg')).toBe(
      'postDocThreadCommentMsg',
    );
    expect(operationIdOf('get', '/v1/vis/grids/:grid/json/meta_data.json')).toBe('getGridJsonMetaDataJson');
    expect(operationIdOf('post', '/gql')).toBe('postGql');
  });

  it('routes whose short forms collide all move to a longer form, whatever the order of the table', () => {
    const lines = [
      'GET /v1/admin/groups/:group/role',
      'GET /v1/admin/groups/:group/roles/:role',
      'GET /v1/vis/docs',
      'GET /v1/docs',
      'GET /v1/u/:user/d/:doc',
      'GET /u/:user/d/:doc',
      'GET /v1/vis/docs/:doc',
    ];
    expect(idsOf(lines)).toEqual([
      'getAdminGroupsGroupRole',
      'getAdminGroupsGroupRolesRole',
      'getVisDocs',
      'getDocs',
      'getV1UUserDDoc',
      'getUUserDDoc',
      'getDoc', // collides with nothing: keeps its short form
    ]);
    const reversed = operationIds([...lines].reverse().map(route));
    for (const [key, id] of operationIds(lines.map(route))) expect(reversed.get(key), key).toBe(id);
  });

  it('a name no form tells apart stays shared (the document test fails on it)', () => {
    expect(idsOf(['GET /v1/a.b', 'GET /v1/a/b'])).toEqual(['getV1AB', 'getV1AB']);
  });
});
