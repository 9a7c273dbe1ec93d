// jest's globalTeardown must be a module's default export.
export { teardown as default } from './run-tmpdir';
