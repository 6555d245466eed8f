import { describe, expect, it } from 'vitest';
import { taxLocationOf, taxRateFor, taxRuleFor, taxTreatmentOf } from '../../../shared/modules/pricing';
import { taxSettings } from './fixtures';

const shippingAddress = { country: 'US', state_prov: 'CA' };
const billingAddress = { country: 'GB', state_prov: 'Kent' };

describe('tax location (commerce §1.4)', () => {
  it('uses the shipping address when the sale has physical items and a shipping country', () => {
    expect(taxLocationOf({ hasPhysical: true, shippingAddress, billingAddress, ipCountry: 'DE' })).toEqual({ country: 'US', stateProv: 'CA' });
  });

  it('ignores the shipping address of a sale without physical items', () => {
    expect(taxLocationOf({ hasPhysical: false, shippingAddress, billingAddress, ipCountry: 'DE' })).toEqual({ country: 'GB', stateProv: 'Kent' });
  });

  it('falls back to the billing address when the shipping address has no country', () => {
    const location = taxLocationOf({ hasPhysical: true, shippingAddress: { country: null, state_prov: 'CA' }, billingAddress, ipCountry: 'DE' });
    expect(location).toEqual({ country: 'GB', stateProv: 'Kent' });
    expect(taxLocationOf({ hasPhysical: true, shippingAddress: null, billingAddress, ipCountry: 'DE' })).toEqual({ country: 'GB', stateProv: 'Kent' });
  });

  it('falls back to the IP country, without a state, when no address has a country', () => {
    expect(taxLocationOf({ hasPhysical: true, shippingAddress: null, billingAddress: { country: null, state_prov: 'CA' }, ipCountry: 'DE' })).toEqual({
      country: 'DE',
      stateProv: null,
    });
    expect(taxLocationOf({ hasPhysical: false, ipCountry: 'fr' })).toEqual({ country: 'FR', stateProv: null });
  });

  it('is none when nothing is known', () => {
    expect(taxLocationOf({ hasPhysical: true, shippingAddress: null, billingAddress: null, ipCountry: null })).toEqual({ country: null, stateProv: null });
    expect(taxLocationOf({ hasPhysical: false, billingAddress: { country: '', state_prov: null }, ipCountry: '' })).toEqual({ country: null, stateProv: null });
  });

  it('uppercases countries and drops blank states', () => {
    expect(taxLocationOf({ hasPhysical: true, shippingAddress: { country: 'us', state_prov: ' ' }, ipCountry: null })).toEqual({ country: 'US', stateProv: null });
  });
});

describe('tax rate (commerce §1.4)', () => {
  const tax = taxSettings([
    { country: 'US', state_prov: null, rate: 0.05 },
    { country: 'US', state_prov: 'CA', rate: 0.0725 },
    { country: 'CA', state_prov: 'QC', rate: 0.14975 },
  ]);

  it('prefers country + state_prov over the country-wide rule', () => {
    expect(taxRateFor({ country: 'US', stateProv: 'CA' }, tax)).toBe(0.0725);
  });

  it('finds the state rule whatever the rule order and case', () => {
    const reversed = taxSettings([...tax.rules].reverse());
    expect(taxRateFor({ country: 'us', stateProv: 'ca' }, reversed)).toBe(0.0725);
    expect(taxRuleFor({ country: 'US', stateProv: 'Ca' }, reversed.rules)).toEqual({ country: 'US', state_prov: 'CA', rate: 0.0725 });
  });

  it('uses the country rule for another state or no state', () => {
    expect(taxRateFor({ country: 'US', stateProv: 'NY' }, tax)).toBe(0.05);
    expect(taxRateFor({ country: 'US', stateProv: null }, tax)).toBe(0.05);
  });

  it('is 0 when no rule matches', () => {
    expect(taxRateFor({ country: 'DE', stateProv: null }, tax)).toBe(0);
    // Only a state rule exists for CA: another province or none gets no tax.
    expect(taxRateFor({ country: 'CA', stateProv: 'ON' }, tax)).toBe(0);
    expect(taxRateFor({ country: 'CA', stateProv: null }, tax)).toBe(0);
    expect(taxRateFor({ country: 'CA', stateProv: 'QC' }, tax)).toBe(0.14975);
  });

  it('is 0 without a location or without rules', () => {
    expect(taxRateFor({ country: null, stateProv: null }, tax)).toBe(0);
    expect(taxRateFor({ country: 'US', stateProv: 'CA' }, taxSettings())).toBe(0);
  });
});

describe('tax treatment (commerce §1.4)', () => {
  const tax = taxSettings(
    [
      { country: 'DE', state_prov: null, rate: 0.19 },
      { country: 'AT', state_prov: null, rate: 0.2 },
      { country: 'US', state_prov: null, rate: 0.1 },
    ],
    { tax_inclusive_countries: ['DE', 'AT'], gross_discount_countries: ['DE', 'US'] },
  );

  it('is tax-inclusive when the tax country is listed', () => {
    expect(taxTreatmentOf({ country: 'de', stateProv: null }, false, tax)).toEqual({
      country: 'DE',
      rate: 0.19,
      locationRate: 0.19,
      tax_inclusive: true,
      discount_on_gross: true,
      tax_exempt: false,
    });
  });

  it('sets discount_on_gross only in tax-inclusive sales of a listed country', () => {
    expect(taxTreatmentOf({ country: 'AT', stateProv: null }, false, tax)).toMatchObject({ tax_inclusive: true, discount_on_gross: false });
    // US is a gross-discount country but not tax-inclusive.
    expect(taxTreatmentOf({ country: 'US', stateProv: null }, false, tax)).toMatchObject({ tax_inclusive: false, discount_on_gross: false });
  });

  it('is exclusive and untaxed without a location', () => {
    expect(taxTreatmentOf({ country: null, stateProv: null }, false, tax)).toMatchObject({ rate: 0, tax_inclusive: false, discount_on_gross: false });
  });

  it('charges an exempt customer nothing but keeps the location rate', () => {
    expect(taxTreatmentOf({ country: 'DE', stateProv: null }, true, tax)).toMatchObject({ rate: 0, locationRate: 0.19, tax_inclusive: true, tax_exempt: true });
  });
});
