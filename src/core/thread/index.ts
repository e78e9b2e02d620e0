/** Comment threads of documents, grids, mails and groups: tables, rules, routes. */
export type { ThreadHost } from './host';
export * from './routes';
export * from './rules';
export * from './schema';
