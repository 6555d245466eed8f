/**
 * `npm run stripe:standin`: the Stripe stand-in on its own (default port 12111, `PORT` to
 * change), for trying the live payment path offline with `npm start`
 * (`CARTWHEEL_STRIPE_API_BASE=http://127.0.0.1:12111`, README "Live payments through Stripe").
 */
import { startStripeStandin } from './server';

const standin = await startStripeStandin({ port: Number(process.env.PORT ?? 12111), log: (line) => console.log(line) });
console.log(`Stripe stand-in listening on ${standin.url} (CARTWHEEL_STRIPE_API_BASE=${standin.url})`);
const stop = () => void standin.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
