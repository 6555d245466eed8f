/**
 * The licenses module as the app composes it (data only, listed in shared/app/modules.ts): the
 * route families it owns, its routes and the resources it declares.
 */
import { defineModule } from '../../http/manifest';
import { allow, allowOrReach } from '../../http/routes';
import { licenseDeclaration, licenseRequestDeclaration } from './requests/license-request-records';
import { licenseServiceDeclaration } from './services/license-services';

export const licensesModule = defineModule({
  name: 'licenses',
  families: {
    licenses: {
      entry: 'handlers/http/licenses.ts',
      memoryMb: 256,
      description: 'License services, license requests and licenses: /license_services, /license_requests, /licenses',
      // Secrets are sealed on write and opened for privileged readers and manual re-sends (which
      // sign with the account key); a re-send may release a confirmation email; taking codes and
      // re-sends record events, whose fan-out is relayed to the event queue after the request.
      grants: { table: 'readWrite', secrets: 'encryptDecrypt', email: true, sendsTo: ['event-notifications'] },
    },
  },
  routes: [
    { method: 'GET', path: '/api/v1/license_services', family: 'licenses', access: allow('license_services', 'read') },
    { method: 'POST', path: '/api/v1/license_services', family: 'licenses', access: allow('license_services', 'create') },
    { method: 'GET', path: '/api/v1/license_services/{license_service_id}', family: 'licenses', access: allow('license_services', 'read') },
    { method: 'POST', path: '/api/v1/license_services/{license_service_id}', family: 'licenses', access: allow('license_services', 'update') },
    { method: 'DELETE', path: '/api/v1/license_services/{license_service_id}', family: 'licenses', access: allow('license_services', 'delete') },
    { method: 'GET', path: '/api/v1/license_requests', family: 'licenses', access: allow('license_requests', 'read') },
    { method: 'GET', path: '/api/v1/license_requests/{license_request_id}', family: 'licenses', access: allow('license_requests', 'read') },
    { method: 'POST', path: '/api/v1/license_requests/{license_request_id}/retry', family: 'licenses', access: allow('license_requests', 'update') },
    { method: 'GET', path: '/api/v1/licenses/{license_id}', family: 'licenses', access: allowOrReach('orders', 'read') },
  ],
  queues: [
    {
      name: 'license-requests',
      description: 'Outbound license requests (licenses.md)',
      // As for notifications: an attempt may take 30 s and a batch runs its messages side by side.
      visibilityTimeoutSeconds: 360,
      maxReceiveCount: 50,
      consumer: {
        entry: 'handlers/queues/license-requests.ts',
        batchSize: 10,
        memoryMb: 256,
        // Attempts, codes, licenses and orders are recorded in the table; service secrets and the
        // account's signature key are opened; a released confirmation email is sent through SES;
        // events are relayed to the notifications queue and delayed wake-ups sent to this one.
        grants: { table: 'readWrite', secrets: 'decrypt', email: true, sendsTo: ['event-notifications', 'license-requests'] },
      },
    },
  ],
  declarations: [licenseRequestDeclaration, licenseDeclaration, licenseServiceDeclaration],
});
