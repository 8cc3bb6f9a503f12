/** The address spellings an attacker tries at save; each must be refused by the outbound helper's rules. */
export const PRIVATE_URLS = [
  'http://127.0.0.1/hook',
  'http://localhost:8080/hook',
  'http://10.0.0.5/hook',
  'http://192.168.1.1/hook',
  'http://169.254.169.254/latest/meta-data/',
  'http://[::1]/hook',
  'http://[::ffff:127.0.0.1]/hook',
  'http://[fd00::1]/hook',
  'http://2130706433/hook',
  'http://0x7f000001/hook',
  'http://0177.0.0.1/hook',
  'http://127.1/hook',
  'http://0/hook',
];
