import sharp from 'sharp';

/** The benchmarks' photo: 2 000 × 1 500, seeded noise blurred a little (it compresses like a photo), JPEG q85. */
export async function photoJpeg(): Promise<Buffer> {
  const noise = Buffer.alloc(2000 * 1500 * 3);
  for (let i = 0, n = 7; i < noise.length; i++) noise[i] = (n = (n * 1103515245 + 12345) & 0x7fffffff) >> 23;
  return sharp(noise, { raw: { width: 2000, height: 1500, channels: 3 } })
    .blur(1.2)
    .jpeg({ quality: 85 })
    .toBuffer();
}
