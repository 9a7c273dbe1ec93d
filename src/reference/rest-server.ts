// The REST interface at {base_url}: GET /v1/tokenized-stocks, errors as rpcStatus JSON
// (never HTML), and, only when enabled, dev-only scenario endpoints under /_dev/.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Address } from 'viem';
import { ControlError, type Controls } from './controls';
import { BodyTooLarge, listenLoopback, readBody, sendJson, type Listening } from './http-util';
import { listTokens } from './listing';
import type { Upstream } from './rpc';

export interface RestOptions {
  upstream: Upstream;
  tokens: readonly Address[];
  /** Serve /_dev/... endpoints; off unless asked for. */
  controls?: Controls;
  port: number;
  log: (line: string) => void;
}

// google.rpc.Code values used in rpcStatus bodies.
const Code = { INVALID_ARGUMENT: 3, NOT_FOUND: 5, RESOURCE_EXHAUSTED: 8, UNIMPLEMENTED: 12, INTERNAL: 13 } as const;
const LIST_PATH = '/v1/tokenized-stocks';
const MAX_DEV_BODY_BYTES = 64 * 1024;

export function startRestServer(opts: RestOptions): Promise<Listening> {
  return listenLoopback(opts.port, (req, res) => {
    route(opts, req, res).catch((err: Error) => {
      opts.log(`rest: ${req.method} ${req.url}: ${err.stack ?? err.message}`);
      if (!res.headersSent) status(res, req, 500, Code.INTERNAL, 'internal error');
      else res.destroy();
    });
  });
}

async function route(opts: RestOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  if (path === LIST_PATH) {
    req.resume();
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      status(res, req, 405, Code.UNIMPLEMENTED, `method ${req.method} is not allowed on ${LIST_PATH}`, { allow: 'GET, HEAD' });
      return;
    }
    const tokens = await listTokens(opts.upstream, opts.tokens);
    sendJson(res, 200, { tokens }, { omitBody: req.method === 'HEAD' });
    return;
  }
  if (opts.controls && path.startsWith('/_dev/')) {
    await dev(opts.controls, path, req, res);
    return;
  }
  req.resume();
  status(res, req, 404, Code.NOT_FOUND, `no resource at ${path}`);
}

type DevHandler = (c: Controls, body: Record<string, unknown>) => Promise<void>;

const DEV_ROUTES: Record<string, DevHandler> = {
  '/_dev/corporate-action': (c, b) => c.corporateAction(str(b, 'symbol'), num(b, 'multiplier')),
  '/_dev/round': (c, b) => c.publishRound(str(b, 'symbol'), num(b, 'navPrice'), date(b, 'updatedAt')),
  '/_dev/pause': (c, b) => c.pause(str(b, 'symbol'), num(b, 'feature')),
  '/_dev/unpause': (c, b) => c.unpause(str(b, 'symbol'), num(b, 'feature')),
  '/_dev/seal': (c) => c.seal(),
};

async function dev(controls: Controls, path: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const handler = DEV_ROUTES[path];
  if (!handler) {
    req.resume();
    status(res, req, 404, Code.NOT_FOUND, `no resource at ${path}`);
    return;
  }
  if (req.method !== 'POST') {
    req.resume();
    status(res, req, 405, Code.UNIMPLEMENTED, `method ${req.method} is not allowed on ${path}`, { allow: 'POST' });
    return;
  }
  let body: Record<string, unknown>;
  try {
    const text = (await readBody(req, MAX_DEV_BODY_BYTES)).toString('utf8');
    const parsed: unknown = text.trim() === '' ? {} : JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ControlError('body must be a JSON object', 'invalid');
    body = parsed as Record<string, unknown>;
    await handler(controls, body);
  } catch (err) {
    if (err instanceof BodyTooLarge) return status(res, req, 413, Code.RESOURCE_EXHAUSTED, 'request body too large');
    if (err instanceof SyntaxError) return status(res, req, 400, Code.INVALID_ARGUMENT, `invalid JSON: ${err.message}`);
    if (err instanceof ControlError) {
      return err.kind === 'not-found' ? status(res, req, 404, Code.NOT_FOUND, err.message) : status(res, req, 400, Code.INVALID_ARGUMENT, err.message);
    }
    throw err;
  }
  sendJson(res, 200, { ok: true });
}

function str(body: Record<string, unknown>, key: string): string {
  const v = body[key];
  if (typeof v !== 'string' || v === '') throw new ControlError(`${key} must be a non-empty string`, 'invalid');
  return v;
}

function num(body: Record<string, unknown>, key: string): number {
  const v = body[key];
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new ControlError(`${key} must be a number`, 'invalid');
  return v;
}

function date(body: Record<string, unknown>, key: string): Date | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  const d = typeof v === 'string' || typeof v === 'number' ? new Date(typeof v === 'number' ? v * 1000 : v) : undefined;
  if (!d || Number.isNaN(d.getTime())) throw new ControlError(`${key} must be an RFC 3339 string or epoch seconds`, 'invalid');
  return d;
}

/** An rpcStatus error body (spec 2.3). */
function status(res: ServerResponse, req: IncomingMessage, http: number, code: number, message: string, headers?: Record<string, string>): void {
  sendJson(res, http, { code, message, details: [] }, { headers, omitBody: req.method === 'HEAD' });
}
