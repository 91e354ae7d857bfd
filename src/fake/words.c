/*-------------------------------------------------------------------------
 *
 * fake/words.c
 *	  The word pools of replace_with_fake_data (see fake/data.c).
 *
 * Written for exwiw: common given names and surnames (facts, not anyone's
 * list), made-up street, city and company words, and common Japanese
 * surnames and given names with their katakana readings.  The pools are
 * part of the output's contract: changing an entry or the order changes
 * the fake value that a seed gives, so entries are only ever appended, and
 * the CHANGELOG says when.
 *
 *-------------------------------------------------------------------------
 */
#include "fake/fake.h"

const char *const fake_first_names[] = {
	"Aaron", "Abigail", "Adam", "Adrian", "Aisha", "Alan", "Albert", "Alex",
	"Alice", "Amelia", "Amir", "Amy", "Ana", "Andre", "Andrea", "Angela",
	"Anna", "Anthony", "Arthur", "Ava", "Beatrice", "Ben", "Bianca", "Bruno",
	"Caleb", "Camila", "Carl", "Carmen", "Caroline", "Chen", "Chloe", "Chris",
	"Clara", "Daniel", "David", "Diana", "Dmitri", "Elena", "Eli", "Ella",
	"Emily", "Emma", "Eric", "Eva", "Farah", "Felix", "Fiona", "Frank",
	"Gabriel", "Grace", "Hana", "Hannah", "Harry", "Hassan", "Helen", "Henry",
	"Hugo", "Ian", "Ines", "Isaac", "Isabel", "Ivan", "Jack", "Jade",
	"James", "Jane", "Javier", "Jonas", "Julia", "Kai", "Karen", "Kevin",
	"Laila", "Laura", "Leo", "Lina", "Lucas", "Lucy", "Luis", "Maria",
	"Mark", "Maya", "Mia", "Milan", "Nadia", "Nina", "Noah", "Nora",
	"Olga", "Omar", "Oscar", "Paul", "Priya", "Rafael", "Rosa", "Sam",
	"Sara", "Sofia", "Tom", "Vera", "Victor", "Yara", "Zoe", "Zoran"
};
const int	fake_first_names_n = lengthof(fake_first_names);

StaticAssertDecl(lengthof(fake_first_names) == FAKE_FIRST_NAMES_N,
				 "FAKE_FIRST_NAMES_N is the size of fake_first_names");

const char *const fake_last_names[] = {
	"Abbott", "Adams", "Ahmed", "Alvarez", "Andersen", "Baker", "Bauer", "Bennett",
	"Berg", "Brooks", "Campbell", "Carter", "Castro", "Chang", "Clarke", "Cohen",
	"Costa", "Cruz", "Dahl", "Diaz", "Dubois", "Edwards", "Evans", "Fischer",
	"Fleming", "Fong", "Foster", "Garcia", "Gray", "Green", "Gupta", "Hall",
	"Hansen", "Harris", "Hughes", "Ibrahim", "Jensen", "Jones", "Kaur", "Keller",
	"Khan", "Kim", "Klein", "Kowalski", "Lambert", "Larsen", "Lee", "Lopez",
	"Martin", "Meyer", "Miller", "Moreau", "Morris", "Murphy", "Nguyen", "Novak",
	"Olsen", "Ortiz", "Park", "Patel", "Perez", "Petrov", "Price", "Quinn",
	"Reed", "Reyes", "Rossi", "Russo", "Sanchez", "Santos", "Schmidt", "Shah",
	"Silva", "Singh", "Smith", "Sousa", "Stone", "Suzuki", "Tan", "Taylor",
	"Torres", "Turner", "Varga", "Vogel", "Wagner", "Walker", "Wang", "Ward",
	"Weber", "Wong", "Wood", "Wright", "Yang", "Young", "Zhang", "Zimmer"
};
const int	fake_last_names_n = lengthof(fake_last_names);

StaticAssertDecl(lengthof(fake_last_names) == FAKE_LAST_NAMES_N,
				 "FAKE_LAST_NAMES_N is the size of fake_last_names");

const char *const fake_streets[] = {
	"Acorn", "Alder", "Amber", "Ash", "Aspen", "Bay", "Beacon", "Birch",
	"Bridge", "Brook", "Cedar", "Chapel", "Cherry", "Church", "Cliff", "Clover",
	"Coral", "Crescent", "Dale", "Elm", "Fern", "Field", "Forest", "Garden",
	"Glen", "Grove", "Harbor", "Hazel", "Heath", "Hill", "Holly", "Ivy",
	"Juniper", "Lake", "Laurel", "Linden", "Maple", "Meadow", "Mill", "Oak",
	"Orchard", "Park", "Pine", "Poplar", "Quarry", "Ridge", "River", "Rose",
	"Spring", "Station", "Stone", "Sunset", "Valley", "View", "Willow", "Wood"
};
const int	fake_streets_n = lengthof(fake_streets);

const char *const fake_street_kinds[] = {
	"Street", "Avenue", "Road", "Lane", "Way", "Drive", "Court", "Place"
};
const int	fake_street_kinds_n = lengthof(fake_street_kinds);

const char *const fake_cities[] = {
	"Ashford", "Bellmont", "Brightwater", "Cedarville", "Clearfield", "Eastbrook",
	"Fairhaven", "Glenwood", "Greenport", "Highbridge", "Kingsvale", "Lakeside",
	"Maplewood", "Millbrook", "Newhaven", "Northfield", "Oakridge", "Pinecrest",
	"Riverton", "Rockport", "Silverdale", "Springfield", "Stonebridge", "Westbury"
};
const int	fake_cities_n = lengthof(fake_cities);

const char *const fake_company_words[] = {
	"Apex", "Beacon", "Blue Harbor", "Brightline", "Cascade", "Cedar", "Copper",
	"Evergreen", "Falcon", "Granite", "Harbor", "Horizon", "Iron Bridge",
	"Juniper", "Keystone", "Lighthouse", "Maple", "Meridian", "North Star",
	"Oakfield", "Pioneer", "Quarry", "Redwood", "Riverbend", "Silverline",
	"Summit", "Trillium", "Vista", "Westwind", "Willow"
};
const int	fake_company_words_n = lengthof(fake_company_words);

const char *const fake_company_kinds[] = {
	"Inc.", "LLC", "Ltd.", "Group", "Partners", "Holdings", "Labs", "Works"
};
const int	fake_company_kinds_n = lengthof(fake_company_kinds);

/* Japanese surnames and given names: kanji, then katakana reading. */
const FakeName fake_ja_last_names[] = {
	{"佐藤", "サトウ"}, {"鈴木", "スズキ"}, {"高橋", "タカハシ"}, {"田中", "タナカ"},
	{"伊藤", "イトウ"}, {"渡辺", "ワタナベ"}, {"山本", "ヤマモト"}, {"中村", "ナカムラ"},
	{"小林", "コバヤシ"}, {"加藤", "カトウ"}, {"吉田", "ヨシダ"}, {"山田", "ヤマダ"},
	{"佐々木", "ササキ"}, {"山口", "ヤマグチ"}, {"松本", "マツモト"}, {"井上", "イノウエ"},
	{"木村", "キムラ"}, {"林", "ハヤシ"}, {"斎藤", "サイトウ"}, {"清水", "シミズ"},
	{"山崎", "ヤマザキ"}, {"森", "モリ"}, {"池田", "イケダ"}, {"橋本", "ハシモト"},
	{"阿部", "アベ"}, {"石川", "イシカワ"}, {"山下", "ヤマシタ"}, {"中島", "ナカジマ"},
	{"石井", "イシイ"}, {"小川", "オガワ"}, {"前田", "マエダ"}, {"岡田", "オカダ"},
	{"長谷川", "ハセガワ"}, {"藤田", "フジタ"}, {"後藤", "ゴトウ"}, {"近藤", "コンドウ"},
	{"村上", "ムラカミ"}, {"遠藤", "エンドウ"}, {"青木", "アオキ"}, {"坂本", "サカモト"}
};
const int	fake_ja_last_names_n = lengthof(fake_ja_last_names);

const FakeName fake_ja_first_names[] = {
	{"翔太", "ショウタ"}, {"大輔", "ダイスケ"}, {"健太", "ケンタ"}, {"拓也", "タクヤ"},
	{"直樹", "ナオキ"}, {"陽介", "ヨウスケ"}, {"悠斗", "ユウト"}, {"蓮", "レン"},
	{"大翔", "ヒロト"}, {"湊", "ミナト"}, {"陸", "リク"}, {"海斗", "カイト"},
	{"誠", "マコト"}, {"浩", "ヒロシ"}, {"隆", "タカシ"}, {"学", "マナブ"},
	{"美咲", "ミサキ"}, {"陽菜", "ヒナ"}, {"結衣", "ユイ"}, {"葵", "アオイ"},
	{"さくら", "サクラ"}, {"花子", "ハナコ"}, {"恵子", "ケイコ"}, {"由美", "ユミ"},
	{"愛", "アイ"}, {"真由美", "マユミ"}, {"彩", "アヤ"}, {"奈々", "ナナ"},
	{"優子", "ユウコ"}, {"明美", "アケミ"}, {"千尋", "チヒロ"}, {"舞", "マイ"},
	{"凛", "リン"}, {"芽依", "メイ"}, {"結菜", "ユイナ"}, {"莉子", "リコ"}
};
const int	fake_ja_first_names_n = lengthof(fake_ja_first_names);

const char *const fake_ja_cities[] = {
	"東京都千代田区", "東京都新宿区", "大阪府大阪市北区", "愛知県名古屋市中区",
	"福岡県福岡市博多区", "北海道札幌市中央区", "京都府京都市左京区", "兵庫県神戸市中央区",
	"神奈川県横浜市西区", "宮城県仙台市青葉区", "広島県広島市中区", "静岡県静岡市葵区"
};
const int	fake_ja_cities_n = lengthof(fake_ja_cities);

const char *const fake_ja_towns[] = {
	"本町", "中央", "栄", "緑町", "桜町", "若葉", "旭町", "東町", "西町", "南町",
	"北町", "港町", "元町", "新町", "宮前", "松原"
};
const int	fake_ja_towns_n = lengthof(fake_ja_towns);
