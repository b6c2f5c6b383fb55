// geoip-country ships no types: the one call the store makes (buyer-country.server.ts).
declare module 'geoip-country' {
  const geoip: { lookup(ip: string): { country: string } | null }
  export default geoip
}
