/**
 * The tax rates the store ships with (issue 31, decision 038): for each country it charges tax in, the rate on
 * eBooks and the standard rate, in basis points (1900 = 19 %), from the day each took effect. Migration 0032
 * copies them into `tax_rates`, where the owner changes and adds rates in the back office (/admin/tax); an
 * update of the store never overwrites the owner's rows.
 *
 * Written down on 2026-12-06 from the rates published by the EU Commission ('VAT rates applied in the Member
 * States'), HMRC, Skatteetaten, the Swiss FTA and the ATO, as known to us then. This is software, not tax
 * advice: the owner checks the rates of the countries they sell into (the back office shows the date each was
 * last changed). A country that is not listed is charged no tax (US states' taxes on digital goods, Canada's
 * GST/HST and others are not handled: decision 038).
 *
 * A rate takes effect at midnight in the country's own time (`timeZone`): an order at 23:30 UTC on 30 June 2020
 * was already on 1 July in Berlin.
 */
export type ShippedCountry = {
  country: string
  name: string
  /** 'EU': the Union's VAT (One-Stop Shop, reverse charge for EU businesses); otherwise the country's own scheme. */
  scheme: 'EU' | 'GB' | 'NO' | 'CH' | 'AU' | 'NZ' | 'JP'
  /** What the tax is called on receipts and invoices. */
  taxName: 'VAT' | 'GST' | 'MWST' | 'JCT'
  timeZone: string
  rates: Array<{ from: string; ebookBp: number; standardBp: number; note?: string }>
}

const eu = (
  country: string,
  name: string,
  timeZone: string,
  rates: ShippedCountry['rates'],
): ShippedCountry => ({ country, name, scheme: 'EU', taxName: 'VAT', timeZone, rates })

export const shippedTaxRates: ShippedCountry[] = [
  eu('AT', 'Austria', 'Europe/Vienna', [
    { from: '2016-01-01', ebookBp: 2000, standardBp: 2000 },
    { from: '2020-01-01', ebookBp: 1000, standardBp: 2000, note: 'eBooks at the reduced rate' },
  ]),
  eu('BE', 'Belgium', 'Europe/Brussels', [
    { from: '2016-01-01', ebookBp: 2100, standardBp: 2100 },
    { from: '2022-01-01', ebookBp: 600, standardBp: 2100 },
  ]),
  eu('BG', 'Bulgaria', 'Europe/Sofia', [{ from: '2021-01-01', ebookBp: 900, standardBp: 2000 }]),
  eu('HR', 'Croatia', 'Europe/Zagreb', [{ from: '2019-01-01', ebookBp: 500, standardBp: 2500 }]),
  eu('CY', 'Cyprus', 'Asia/Nicosia', [{ from: '2019-01-01', ebookBp: 500, standardBp: 1900 }]),
  eu('CZ', 'Czechia', 'Europe/Prague', [
    { from: '2020-05-01', ebookBp: 1000, standardBp: 2100 },
    { from: '2024-01-01', ebookBp: 0, standardBp: 2100, note: 'books zero-rated' },
  ]),
  eu('DK', 'Denmark', 'Europe/Copenhagen', [{ from: '2016-01-01', ebookBp: 2500, standardBp: 2500 }]),
  eu('EE', 'Estonia', 'Europe/Tallinn', [
    { from: '2024-01-01', ebookBp: 900, standardBp: 2200 },
    { from: '2025-07-01', ebookBp: 900, standardBp: 2400 },
  ]),
  eu('FI', 'Finland', 'Europe/Helsinki', [
    { from: '2019-07-01', ebookBp: 1000, standardBp: 2400 },
    { from: '2024-09-01', ebookBp: 1000, standardBp: 2550 },
    { from: '2025-01-01', ebookBp: 1400, standardBp: 2550 },
  ]),
  eu('FR', 'France', 'Europe/Paris', [{ from: '2016-01-01', ebookBp: 550, standardBp: 2000 }]),
  eu('DE', 'Germany', 'Europe/Berlin', [
    { from: '2016-01-01', ebookBp: 1900, standardBp: 1900 },
    { from: '2019-12-18', ebookBp: 700, standardBp: 1900, note: 'eBooks at the reduced rate' },
    { from: '2020-07-01', ebookBp: 500, standardBp: 1600, note: 'temporary cut (COVID-19)' },
    { from: '2021-01-01', ebookBp: 700, standardBp: 1900 },
  ]),
  eu('GR', 'Greece', 'Europe/Athens', [{ from: '2016-06-01', ebookBp: 600, standardBp: 2400 }]),
  eu('HU', 'Hungary', 'Europe/Budapest', [{ from: '2016-01-01', ebookBp: 500, standardBp: 2700 }]),
  eu('IE', 'Ireland', 'Europe/Dublin', [
    { from: '2021-03-01', ebookBp: 900, standardBp: 2300 },
    { from: '2022-05-01', ebookBp: 0, standardBp: 2300, note: 'eBooks zero-rated' },
  ]),
  eu('IT', 'Italy', 'Europe/Rome', [{ from: '2016-01-01', ebookBp: 400, standardBp: 2200 }]),
  eu('LV', 'Latvia', 'Europe/Riga', [{ from: '2019-01-01', ebookBp: 500, standardBp: 2100 }]),
  eu('LT', 'Lithuania', 'Europe/Vilnius', [{ from: '2019-01-01', ebookBp: 900, standardBp: 2100 }]),
  eu('LU', 'Luxembourg', 'Europe/Luxembourg', [{ from: '2024-01-01', ebookBp: 300, standardBp: 1700 }]),
  eu('MT', 'Malta', 'Europe/Malta', [{ from: '2019-01-01', ebookBp: 500, standardBp: 1800 }]),
  eu('NL', 'Netherlands', 'Europe/Amsterdam', [{ from: '2019-01-01', ebookBp: 900, standardBp: 2100 }]),
  eu('PL', 'Poland', 'Europe/Warsaw', [{ from: '2019-01-01', ebookBp: 500, standardBp: 2300 }]),
  eu('PT', 'Portugal', 'Europe/Lisbon', [{ from: '2019-01-01', ebookBp: 600, standardBp: 2300 }]),
  eu('RO', 'Romania', 'Europe/Bucharest', [
    { from: '2017-01-01', ebookBp: 500, standardBp: 1900 },
    { from: '2025-08-01', ebookBp: 1100, standardBp: 2100 },
  ]),
  eu('SK', 'Slovakia', 'Europe/Bratislava', [
    { from: '2019-01-01', ebookBp: 1000, standardBp: 2000 },
    { from: '2025-01-01', ebookBp: 500, standardBp: 2300 },
  ]),
  eu('SI', 'Slovenia', 'Europe/Ljubljana', [{ from: '2019-01-01', ebookBp: 500, standardBp: 2200 }]),
  eu('ES', 'Spain', 'Europe/Madrid', [{ from: '2020-04-23', ebookBp: 400, standardBp: 2100 }]),
  eu('SE', 'Sweden', 'Europe/Stockholm', [{ from: '2019-07-01', ebookBp: 600, standardBp: 2500 }]),
  {
    country: 'GB',
    name: 'United Kingdom',
    scheme: 'GB',
    taxName: 'VAT',
    timeZone: 'Europe/London',
    rates: [
      { from: '2016-01-01', ebookBp: 2000, standardBp: 2000 },
      { from: '2020-05-01', ebookBp: 0, standardBp: 2000, note: 'e-publications zero-rated' },
    ],
  },
  {
    country: 'NO',
    name: 'Norway',
    scheme: 'NO',
    taxName: 'VAT',
    timeZone: 'Europe/Oslo',
    rates: [{ from: '2016-01-01', ebookBp: 0, standardBp: 2500, note: 'eBooks zero-rated' }],
  },
  {
    country: 'CH',
    name: 'Switzerland',
    scheme: 'CH',
    taxName: 'MWST',
    timeZone: 'Europe/Zurich',
    rates: [{ from: '2024-01-01', ebookBp: 260, standardBp: 810 }],
  },
  {
    country: 'AU',
    name: 'Australia',
    scheme: 'AU',
    taxName: 'GST',
    timeZone: 'Australia/Sydney',
    rates: [{ from: '2017-07-01', ebookBp: 1000, standardBp: 1000 }],
  },
  {
    country: 'NZ',
    name: 'New Zealand',
    scheme: 'NZ',
    taxName: 'GST',
    timeZone: 'Pacific/Auckland',
    rates: [{ from: '2016-10-01', ebookBp: 1500, standardBp: 1500 }],
  },
  {
    country: 'JP',
    name: 'Japan',
    scheme: 'JP',
    taxName: 'JCT',
    timeZone: 'Asia/Tokyo',
    rates: [{ from: '2019-10-01', ebookBp: 1000, standardBp: 1000 }],
  },
]
