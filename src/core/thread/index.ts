/** Comment threads of documents, grids, mails and groups: tables, rules, routes. */
export * from './routes';
export * from './rules';
export * from './schema';
