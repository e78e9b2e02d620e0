/**
 * A webhook receiver on loopback for the e2e tests: records every request per path and
 * answers what the test scripted for that path (a status, headers), 200 otherwise.
 * Every recorded delivery is checked with the reference verifier (standardwebhooks).
 */
import { createServer, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';

export interface Received {
  path: string;
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  event: { type: string; timestamp: string; data: Record<string, unknown> };
  headers: Record<string, string>;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
}

export class Receiver {
  readonly received: Received[] = [];
  /** Scripted answers per path, used up in order; 200 once a path's list is empty. */
  readonly answers = new Map<string, Answer[]>();
  private server!: Server;
  port = 0;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
        this.received.push({
          path: req.url ?? '',
          id: headers['webhook-id'] ?? '',
          timestamp: headers['webhook-timestamp'] ?? '',
          signature: headers['webhook-signature'] ?? '',
          body,
          event: JSON.parse(body || '{}'),
          headers,
        });
        const answer = this.answers.get(req.url ?? '')?.shift() ?? { status: 200 };
        res.writeHead(answer.status, answer.headers);
        res.end('ok');
      });
    });
    await new Promise<void>((ok) => this.server.listen(0, '127.0.0.1', ok));
    this.port = (this.server.address() as { port: number }).port;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  stop(): Promise<void> {
    return new Promise((ok) => this.server.close(() => ok()));
  }
}

/** Throws unless the reference verifier accepts the delivery under `secret`. */
export function verify(secret: string, r: Received): unknown {
  return new Webhook(secret).verify(r.body, {
    'webhook-id': r.id,
    'webhook-timestamp': r.timestamp,
    'webhook-signature': r.signature,
  });
}
