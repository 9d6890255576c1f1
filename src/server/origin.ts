import type { FastifyRequest } from 'fastify';
import { forbidden } from '../core/errors.js';

/**
 * Refuses a state-changing request whose `Origin` is not the server's public origin
 * (VULNSCOPE_PUBLIC_URL): a browser always sends `Origin` on such a request, so a request from
 * another site, or one without it, cannot act with a visitor's cookie.
 */
export function requirePublicOrigin(request: FastifyRequest, publicUrl: string): void {
  const origin = request.headers.origin;
  if (!origin) throw forbidden(`forbidden: ${request.method} from a browser needs an Origin header`);
  if (origin !== new URL(publicUrl).origin) {
    throw forbidden(
      `forbidden: Origin ${JSON.stringify(origin)} is not this server's public origin (VULNSCOPE_PUBLIC_URL)`,
    );
  }
}
