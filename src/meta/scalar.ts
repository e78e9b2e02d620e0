/**
 * Scalar's standalone browser bundle as text. wrangler.toml's [[rules]] (type "Text")
 * makes wrangler (and the vitest Workers pool, which reads the same rules) import this file
 * as a string instead of running it (`npm run types` declares such `*.js` modules as strings in
 * worker-configuration.d.ts); the package's exports map hides dist/, hence the path.
 */
import bundle from '../../node_modules/@scalar/api-reference/dist/browser/standalone.js';

export const SCALAR_BUNDLE: string = bundle;
/** Keep in step with package.json (the page's cache-busting query). */
export const SCALAR_VERSION = '1.72.1';
