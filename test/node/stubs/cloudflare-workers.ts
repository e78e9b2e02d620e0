/**
 * `cloudflare:workers` outside workerd: the Node suite loads modules that extend these
 * classes (the route table builds without running them), never calls them.
 */
export class WorkerEntrypoint<E = unknown> {
  constructor(
    readonly ctx: unknown,
    readonly env: E,
  ) {}
}
// oxlint-disable-next-line typescript/no-extraneous-class -- stands for the runtime's RpcTarget, a base class to extend
export class RpcTarget {}
export class DurableObject<E = unknown> {
  constructor(
    readonly ctx: unknown,
    readonly env: E,
  ) {}
}
export const exports: Record<string, unknown> = {};
export const env: Record<string, unknown> = {};
