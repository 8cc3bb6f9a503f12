import { articles, mulberry32, type Article } from './data.ts';

/**
 * The data of `bench:search`: the peer's articles (bench/data.ts: same fields, same status, views and dates) with
 * their title and body replaced by English or, for about a third, Vietnamese text with full diacritics; and
 * English → Vietnamese sentence pairs for the translation memory. Every draw comes from seeded generators, so every
 * run (and both systems) get the same rows.
 */

/** Vietnamese phrases; two of them hold "Hà Nội", whose unaccented spelling is `ha noi`. */
export const VI_PHRASES = [
  'Đường phố Hà Nội',
  'thủ đô Hà Nội',
  'thành phố Hồ Chí Minh',
  'nghiên cứu khoa học',
  'giáo dục',
  'phát triển bền vững',
  'kinh tế thị trường',
  'văn hóa truyền thống',
  'du lịch biển',
  'sông Mê Kông',
  'đồng bằng sông Cửu Long',
  'ẩm thực đường phố',
  'phở bò',
  'bánh mì',
  'cà phê sữa đá',
  'nông nghiệp công nghệ cao',
  'trường đại học',
  'học sinh tiểu học',
  'bệnh viện trung ương',
  'y tế cộng đồng',
  'giao thông công cộng',
  'tàu điện ngầm',
  'xe máy',
  'năng lượng tái tạo',
  'điện mặt trời',
  'biến đổi khí hậu',
  'bảo vệ môi trường',
  'rừng ngập mặn',
  'chuyển đổi số',
  'khởi nghiệp',
  'doanh nghiệp nhỏ và vừa',
  'xuất khẩu nông sản',
  'gạo',
  'thủy sản',
  'lễ hội mùa xuân',
  'Tết Nguyên Đán',
  'áo dài',
  'nhà hát lớn',
  'phố cổ',
  'hồ Hoàn Kiếm',
  'vịnh Hạ Long',
  'cố đô Huế',
  'Đà Nẵng',
  'người dân địa phương',
  'chính quyền thành phố',
  'quy hoạch đô thị',
  'nhà ở xã hội',
  'an toàn thực phẩm',
  'bóng đá',
  'âm nhạc dân gian',
  'nghệ thuật đương đại',
];

const EN_COMMON = (
  'the a of and to in for on with from by about new local public city people year report plan project work ' +
  'market school water energy river street food health study team group office service system program policy ' +
  'community budget council season morning evening growth change support network centre region country ' +
  'open early late small large young old first last next good long short'
).split(' ');

/** Words that appear rarely (titles, and now and then a body): what a reader would search for. */
export const EN_TOPICS = (
  'climate harbour festival vaccine railway drought tourism museum library orchestra satellite earthquake ' +
  'harvest election bicycle monsoon volcano lantern pottery fisheries bamboo mangrove typhoon startup ' +
  'semiconductor robotics archive cathedral marathon theatre glacier coffee textile shipyard airport ' +
  'vineyard telescope coral migration wetland'
).split(' ');

/** The terms searched: an English word, an unaccented Vietnamese phrase and the same phrase accented. */
export const SEARCH_TERMS = [
  { key: 'en', term: 'climate', what: 'English word' },
  { key: 'vi-plain', term: 'ha noi', what: 'Vietnamese, unaccented' },
  { key: 'vi', term: 'Hà Nội', what: 'Vietnamese, accented' },
] as const;

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** The peer's `n` articles with English or (about a third, drawn) Vietnamese titles and bodies; `vi` counts the latter. */
export function searchArticles(n: number): { rows: Article[]; vi: number } {
  const rand = mulberry32(2026);
  const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)]!;
  const en = (k: number) =>
    Array.from({ length: k }, () => (rand() < 0.05 ? pick(EN_TOPICS) : pick(EN_COMMON))).join(' ');
  const vi = (sentences: number) =>
    Array.from({ length: sentences }, () => {
      // Vietnamese text borrows an English word now and then, as real copy does.
      const parts = Array.from({ length: 3 }, () => (rand() < 0.1 ? pick(EN_TOPICS) : pick(VI_PHRASES)));
      return `${capital(parts.join(', '))}.`;
    }).join(' ');
  let viCount = 0;
  const rows = articles(n).map((a, i) => {
    if (rand() < 1 / 3) {
      viCount++;
      return { ...a, title: `Article ${i + 1} ${pick(VI_PHRASES)} ${pick(VI_PHRASES)}`, body: vi(4) };
    }
    return { ...a, title: `Article ${i + 1} ${pick(EN_TOPICS)} ${en(3)}`, body: en(60) };
  });
  return { rows, vi: viCount };
}

/** Sentence parts, English and Vietnamese side by side; a sentence is one of each, in this order. */
const TM_PARTS: [string, string][][] = [
  [
    ['the city council', 'hội đồng thành phố'],
    ['the research team', 'nhóm nghiên cứu'],
    ['our school', 'trường chúng tôi'],
    ['the ministry of education', 'bộ giáo dục'],
    ['the local government', 'chính quyền địa phương'],
    ['the company', 'công ty'],
    ['the central hospital', 'bệnh viện trung ương'],
    ['the farmers', 'những người nông dân'],
    ['the students', 'các sinh viên'],
    ['the history museum', 'bảo tàng lịch sử'],
    ['the provincial committee', 'ủy ban tỉnh'],
    ['the tourism board', 'sở du lịch'],
    ['the young engineers', 'các kỹ sư trẻ'],
    ['the national library', 'thư viện quốc gia'],
    ['the water authority', 'công ty cấp nước'],
    ['the transport department', 'sở giao thông vận tải'],
    ['the fishing cooperative', 'hợp tác xã nghề cá'],
    ['the press office', 'văn phòng báo chí'],
    ['the startup founders', 'những người sáng lập khởi nghiệp'],
    ['the university board', 'hội đồng trường đại học'],
  ],
  [
    ['announced', 'đã công bố'],
    ['approved', 'đã phê duyệt'],
    ['completed', 'đã hoàn thành'],
    ['started', 'đã bắt đầu'],
    ['reviewed', 'đã xem xét'],
    ['postponed', 'đã hoãn'],
    ['funded', 'đã tài trợ'],
    ['presented', 'đã trình bày'],
    ['published', 'đã xuất bản'],
    ['discussed', 'đã thảo luận'],
    ['rejected', 'đã bác bỏ'],
    ['revised', 'đã sửa đổi'],
  ],
  [
    ['a new plan for', 'một kế hoạch mới cho'],
    ['the budget for', 'ngân sách cho'],
    ['a study on', 'một nghiên cứu về'],
    ['the report on', 'báo cáo về'],
    ['a project for', 'một dự án cho'],
    ['the program for', 'chương trình cho'],
    ['a survey of', 'một cuộc khảo sát về'],
    ['the guidelines for', 'hướng dẫn về'],
    ['a campaign for', 'một chiến dịch cho'],
    ['the strategy for', 'chiến lược cho'],
  ],
  [
    ['clean water', 'nước sạch'],
    ['public transport', 'giao thông công cộng'],
    ['sustainable development', 'phát triển bền vững'],
    ['higher education', 'giáo dục đại học'],
    ['rice farming', 'trồng lúa'],
    ['flood prevention', 'phòng chống lũ lụt'],
    ['green energy', 'năng lượng xanh'],
    ['street food safety', 'an toàn thực phẩm đường phố'],
    ['digital transformation', 'chuyển đổi số'],
    ['primary schools', 'các trường tiểu học'],
    ['community health', 'sức khỏe cộng đồng'],
    ['urban planning', 'quy hoạch đô thị'],
    ['social housing', 'nhà ở xã hội'],
    ['mangrove forests', 'rừng ngập mặn'],
    ['coffee exports', 'xuất khẩu cà phê'],
    ['traditional crafts', 'nghề thủ công truyền thống'],
    ['air quality', 'chất lượng không khí'],
    ['the metro line', 'tuyến tàu điện ngầm'],
    ['small businesses', 'doanh nghiệp nhỏ'],
    ['folk music', 'âm nhạc dân gian'],
    ['scientific research', 'nghiên cứu khoa học'],
    ['coastal tourism', 'du lịch biển'],
    ['climate change', 'biến đổi khí hậu'],
    ['food security', 'an ninh lương thực'],
    ['road safety', 'an toàn giao thông'],
  ],
  [
    ['in Hanoi', 'tại Hà Nội'],
    ['in Ho Chi Minh City', 'tại Thành phố Hồ Chí Minh'],
    ['in Da Nang', 'tại Đà Nẵng'],
    ['in Hue', 'tại Huế'],
    ['in the Mekong Delta', 'ở Đồng bằng sông Cửu Long'],
    ['in Hai Phong', 'tại Hải Phòng'],
    ['in Can Tho', 'tại Cần Thơ'],
    ['in Nha Trang', 'tại Nha Trang'],
    ['in the Central Highlands', 'ở Tây Nguyên'],
    ['in Quang Ninh', 'tại Quảng Ninh'],
    ['in the northern provinces', 'ở các tỉnh phía Bắc'],
    ['in rural areas', 'ở vùng nông thôn'],
    ['in coastal towns', 'ở các thị trấn ven biển'],
    ['in Vinh', 'tại Vinh'],
    ['in Dalat', 'tại Đà Lạt'],
  ],
  [
    ['this year', 'trong năm nay'],
    ['last month', 'vào tháng trước'],
    ['next spring', 'vào mùa xuân tới'],
    ['in 2025', 'vào năm 2025'],
    ['before the holidays', 'trước kỳ nghỉ lễ'],
    ['after the rainy season', 'sau mùa mưa'],
    ['this week', 'trong tuần này'],
    ['at the end of the quarter', 'vào cuối quý'],
    ['in the coming months', 'trong những tháng tới'],
    ['last autumn', 'vào mùa thu năm ngoái'],
  ],
];

export interface TmPair {
  source: string;
  target: string;
}

/** `n` distinct English sentences with their Vietnamese translations (about 9 million are possible). */
export function tmPairs(n: number): TmPair[] {
  const rand = mulberry32(1975);
  const seen = new Set<string>();
  const out: TmPair[] = [];
  while (out.length < n) {
    const parts = TM_PARTS.map((slot) => slot[Math.floor(rand() * slot.length)]!);
    const source = `${capital(parts.map((p) => p[0]).join(' '))}.`;
    if (seen.has(source)) continue;
    seen.add(source);
    out.push({ source, target: `${capital(parts.map((p) => p[1]).join(' '))}.` });
  }
  return out;
}

const OTHER_WORDS = ['recent', 'major', 'final', 'regional', 'updated', 'second', 'small', 'joint'];

/**
 * `k` near-miss queries: a stored source with one word edited, a letter dropped (even queries) or the word replaced by
 * one the memory never holds (odd ones). `from` is the index of the pair the query was made from.
 */
export function nearMisses(pairs: TmPair[], k: number): { query: string; from: number }[] {
  const rand = mulberry32(7);
  return Array.from({ length: k }, (_, q) => {
    const from = Math.floor(rand() * pairs.length);
    const words = pairs[from]!.source.split(' ');
    const at = Math.floor(rand() * words.length);
    const w = words[at]!;
    if (q % 2 === 0 && w.length >= 4) {
      const cut = 1 + Math.floor(rand() * (w.length - 2));
      words[at] = w.slice(0, cut) + w.slice(cut + 1);
    } else {
      words[at] = OTHER_WORDS[Math.floor(rand() * OTHER_WORDS.length)]!;
    }
    return { query: words.join(' '), from };
  });
}
