// Vite's `?worker&url` import (the service worker's address in the build).
declare module '*?worker&url' {
  const url: string;
  export default url;
}
