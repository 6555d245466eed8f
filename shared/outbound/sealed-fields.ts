/**
 * Sealed fields (events.md §2.1, licenses.md §2.1): the secret properties of a record that
 * sends outbound requests (an event subscription's credentials and key, a license service's
 * credentials), sealed together with the platform's secrets port into one stored value, bound
 * to the record by the sealing purpose, and shown only to holders of the resource's `update`
 * permission. One implementation, made per resource by `sealedFields`.
 */
import { isAllowed } from '../core/access/permissions';
import type { PermissionResource } from '../core/access/permission-names';
import type { Principal } from '../core/access/principal';
import type { SecretsPort } from '../platform/ports';
import type { RecordScope } from '../store/records';

/** The secret properties by name, null when not set. */
export type SecretValues<Name extends string> = Record<Name, string | null>;

/** A stored record that keeps its secret properties sealed in `secrets_sealed`, named by its `IdField`. */
export type SealingRecord<IdField extends string> = { account_id: string; mode: RecordScope['mode']; secrets_sealed: string | null } & Record<IdField, string>;

/** The sealing, opening and visibility rules of one resource's secret properties. */
export interface SealedFields<Name extends string, IdField extends string = string> {
  /** The names of the secret properties. */
  readonly names: readonly Name[];
  /** Every secret property null: what a record with none set opens to. */
  none(): SecretValues<Name>;
  /** Seals the values for the record `id` of `scope`, or null when none is set. */
  seal(values: SecretValues<Name>, scope: RecordScope, id: string, port: SecretsPort): Promise<string | null>;
  /** Opens a sealed value of the record `id` of `scope` (all null when `sealed` is null); a value sealed for another record fails. */
  open(sealed: string | null, scope: RecordScope, id: string, port: SecretsPort): Promise<SecretValues<Name>>;
  /** Opens the values a stored record keeps (all null when none is set), bound to its scope and id. */
  openRecord(record: SealingRecord<IdField>, port: SecretsPort): Promise<SecretValues<Name>>;
  /** Whether two sets of values are the same (an update that keeps them keeps the sealed value). */
  same(a: SecretValues<Name>, b: SecretValues<Name>): boolean;
  /** Whether `principal` may see the values: the owner or a holder of `<permission>:update`, never a limited token. */
  maySee(principal: Pick<Principal, 'kind' | 'isOwner' | 'permissions'> | undefined): boolean;
}

/**
 * The sealed fields of a resource: `purpose` names it in the sealing purpose
 * (`<purpose>:<account>:<mode>:<id>`), `permission` is the resource whose `update` shows them,
 * `idField` the record's id property (what binds a stored value to its record).
 *
 * @example const sealed = sealedFields({ purpose: 'license_service', permission: 'license_services', idField: 'license_service_id', names: ['http_authorization_password', 'custom_header_value'] });
 */
export function sealedFields<const Name extends string, const IdField extends string>(options: {
  purpose: string;
  permission: PermissionResource;
  idField: IdField;
  names: readonly Name[];
}): SealedFields<Name, IdField> {
  const { purpose, permission, idField, names } = options;
  const none = () => Object.fromEntries(names.map((name) => [name, null])) as SecretValues<Name>;
  const sealingPurpose = (scope: RecordScope, id: string) => `${purpose}:${scope.accountId}:${scope.mode}:${id}`;
  const open = async (sealed: string | null, scope: RecordScope, id: string, port: SecretsPort): Promise<SecretValues<Name>> => {
    if (!sealed) return none();
    const opened = JSON.parse(await port.open(sealed, sealingPurpose(scope, id))) as Partial<SecretValues<Name>>;
    return { ...none(), ...opened };
  };
  return {
    names,
    none,
    async seal(values, scope, id, port) {
      if (names.every((name) => values[name] === null)) return null;
      return port.seal(JSON.stringify(values), sealingPurpose(scope, id));
    },
    open,
    openRecord: (record, port) => open(record.secrets_sealed, { accountId: record.account_id, mode: record.mode }, record[idField], port),
    same: (a, b) => names.every((name) => a[name] === b[name]),
    maySee(principal) {
      if (!principal || principal.kind === 'limited') return false;
      return principal.isOwner || isAllowed(principal.permissions, permission, 'update');
    },
  };
}
