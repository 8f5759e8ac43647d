/**
 * A small country dataset written for the Reins demo (rounded public figures: capitals, ISO
 * currency codes, areas in km² and recent population estimates). Demo data, not a reference.
 * Records carry API-style transport noise (`_links`, `etag`, `*_url`) on purpose, so the
 * observation cleaner has something to condense.
 */
export interface CountryRecord {
  readonly name: string;
  readonly capital: string;
  readonly currency: string;
  readonly areaKm2: number;
  readonly population: number;
  readonly continent: string;
  readonly languages: readonly string[];
}

export const COUNTRIES: readonly CountryRecord[] = Object.freeze([
  { name: "Australia", capital: "Canberra", currency: "AUD", areaKm2: 7_688_287, population: 27_000_000, continent: "Oceania", languages: ["English"] },
  { name: "Brazil", capital: "Brasília", currency: "BRL", areaKm2: 8_515_767, population: 203_100_000, continent: "South America", languages: ["Portuguese"] },
  { name: "Canada", capital: "Ottawa", currency: "CAD", areaKm2: 9_984_670, population: 40_100_000, continent: "North America", languages: ["English", "French"] },
  { name: "Egypt", capital: "Cairo", currency: "EGP", areaKm2: 1_010_408, population: 105_000_000, continent: "Africa", languages: ["Arabic"] },
  { name: "France", capital: "Paris", currency: "EUR", areaKm2: 551_695, population: 68_200_000, continent: "Europe", languages: ["French"] },
  { name: "Germany", capital: "Berlin", currency: "EUR", areaKm2: 357_592, population: 84_500_000, continent: "Europe", languages: ["German"] },
  { name: "India", capital: "New Delhi", currency: "INR", areaKm2: 3_287_263, population: 1_430_000_000, continent: "Asia", languages: ["Hindi", "English"] },
  { name: "Japan", capital: "Tokyo", currency: "JPY", areaKm2: 377_975, population: 124_500_000, continent: "Asia", languages: ["Japanese"] },
  { name: "Kenya", capital: "Nairobi", currency: "KES", areaKm2: 580_367, population: 47_600_000, continent: "Africa", languages: ["Swahili", "English"] },
  { name: "Mexico", capital: "Mexico City", currency: "MXN", areaKm2: 1_964_375, population: 126_000_000, continent: "North America", languages: ["Spanish"] },
  { name: "Norway", capital: "Oslo", currency: "NOK", areaKm2: 385_207, population: 5_550_000, continent: "Europe", languages: ["Norwegian"] },
  { name: "Switzerland", capital: "Bern", currency: "CHF", areaKm2: 41_285, population: 8_900_000, continent: "Europe", languages: ["German", "French", "Italian", "Romansh"] },
]);

/**
 * Fixed demo exchange rates: units of each currency per 1 EUR. Invented round figures for the
 * demo's currency tool, not market data.
 */
export const DEMO_RATES_PER_EUR: Readonly<Record<string, number>> = Object.freeze({
  EUR: 1,
  USD: 1.1,
  JPY: 160,
  GBP: 0.85,
  CHF: 0.95,
  NOK: 11.5,
  BRL: 6,
});
