/**
 * The platform's structured logger (Powertools): JSON lines with the service name, the same
 * in Lambda and locally. Never log tokens, passwords or secrets.
 */
import { Logger } from '@aws-lambda-powertools/logger';

/** The shared logger. */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'cartwheel' });
