export * from './kind';
