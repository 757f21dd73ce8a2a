// simdjson On-Demand against OfferLab's JSON Lines format (docs/input-formats.md#json-lines): a
// measurement, not product code (issue 31; docs/performance-history.md, "simdjson against the hand-written JSON scanner").
//
// Reads decompressed JSON Lines on stdin, then parses every line PASSES times with simdjson's
// On-Demand API into a record of the same fields as `JSONLineParser` (its default: no slice
// fields, `--slices` adds `country` and `platform`), with the checks of
// docs/input-formats.md#malformed-lines after simdjson's own, in the malformed-reason order of
// `LogFieldValues.resolve`:
//   invalidJSON, missingField (ts, user_id, event), invalidField (types, price),
//   badTimestamp (text grammar or epoch ms), missingField (by event type), negativePrice.
// Keys are matched on their unescaped bytes (snake_case wins over camelCase, the last repeat
// wins); null is absent; the empty string is absent for the optional fields.
//
// Prints lines, passes, ns per line and the same checksum as `ingest-benchmark --parser`
// (the sum of the valid records' timestamps over all passes), and the count of each reason.
//
//   --skip   unknown keys' values are skipped the On-Demand way (brackets and strings only:
//            a malformed number, literal or escape inside them is not seen); by default they
//            are walked and every scalar validated, as the hand-written scanner does.
//   --raw    keys and string values without a backslash are read as their bytes in the line
//            (`field::key().raw()`, `value::raw_json_token()`) instead of unescaped into
//            simdjson's string buffer (`unescaped_key()`, `get_string()`), as the scanner's
//            plain lines are.
//   --slices also read country and platform.
//   --each   prints each line's reason (valid or the malformed one) instead of timing.
//   --floor  simdjson alone, for its floor: iterate, visit every key, skip every value, keep
//            nothing, no check of the log format (the checksum is then the count of members).
//
// Build (see README.md): g++ -std=c++17 -O2 simdjson_lines.cpp -lsimdjson
#include <simdjson.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <string_view>
#include <vector>

using namespace simdjson;

enum Reason { VALID = 0, INVALID_JSON, MISSING_FIELD, INVALID_FIELD, BAD_TIMESTAMP, NEGATIVE_PRICE, REASONS };
static const char *reasonNames[REASONS] = {"valid", "invalidJSON", "missingField", "invalidField", "badTimestamp",
                                           "negativePrice"};

enum Kind : uint8_t { K_NULL, K_STRING, K_INTEGER, K_NUMBER, K_OTHER };
struct FieldValue {
  Kind kind;
  std::string_view text;
};

// Slots as in LogFieldSlot.
enum {
  S_TS = 0, S_EVENT, S_PRICE, S_CURRENCY, S_ENVIRONMENT, S_USER, S_EVENT_ID, S_OFFERING, S_TEST_GROUP, S_PRODUCT,
  S_TRANSACTION, S_ORIGINAL_TRANSACTION, CAMEL = 7, S_COUNTRY = 19, S_PLATFORM = 20, S_COUNT = 21
};

static int matchKey(std::string_view k, bool slices) {
  switch (k.size()) {
  case 2: return k == "ts" ? S_TS : -1;
  case 5: return k == "event" ? S_EVENT : k == "price" ? S_PRICE : -1;
  case 6: return k == "userId" ? S_USER + CAMEL : -1;
  case 7:
    if (k == "user_id") return S_USER;
    if (k == "eventId") return S_EVENT_ID + CAMEL;
    return slices && k == "country" ? S_COUNTRY : -1;
  case 8:
    if (k == "event_id") return S_EVENT_ID;
    if (k == "currency") return S_CURRENCY;
    return slices && k == "platform" ? S_PLATFORM : -1;
  case 9: return k == "productId" ? S_PRODUCT + CAMEL : -1;
  case 10: return k == "offeringId" ? S_OFFERING + CAMEL : k == "product_id" ? S_PRODUCT : -1;
  case 11:
    return k == "offering_id" ? S_OFFERING : k == "testGroupId" ? S_TEST_GROUP + CAMEL : k == "environment" ? S_ENVIRONMENT : -1;
  case 13: return k == "test_group_id" ? S_TEST_GROUP : k == "transactionId" ? S_TRANSACTION + CAMEL : -1;
  case 14: return k == "transaction_id" ? S_TRANSACTION : -1;
  case 21: return k == "originalTransactionId" ? S_ORIGINAL_TRANSACTION + CAMEL : -1;
  case 23: return k == "original_transaction_id" ? S_ORIGINAL_TRANSACTION : -1;
  default: return -1;
  }
}

// The record: the same fields as LogRecord (strings as views of the parser's buffer or the line).
struct Record {
  std::string_view eventID, userID, eventName, productID, transactionID, originalTransactionID, currency, offeringID,
      testGroupID, country, platform;
  int eventType = -1;
  int64_t timestamp = 0;
  int64_t price = 0;
  bool hasPrice = false, isSandbox = false;
};

// ---- Value grammars of docs/input-formats.md#json-lines (ports of Timestamp.parse, parseEpochMilliseconds, Price) ----

static inline bool digitsAt(const char *p, int at, int n, int &out) {
  int v = 0;
  for (int i = 0; i < n; i++) {
    unsigned d = (unsigned char)p[at + i] - '0';
    if (d > 9) return false;
    v = v * 10 + (int)d;
  }
  out = v;
  return true;
}
static inline bool isLeap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }
static inline int daysInMonth(int y, int m) {
  static const int d[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && isLeap(y) ? 29 : d[m - 1];
}
static inline int64_t daysFromCivil(int64_t y, int m, int d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

struct DayCache {
  char date[10];
  bool valid = false;
  int64_t days = 0;
};

static bool parseTimestamp(std::string_view s, DayCache &cache, int64_t &out) {
  const size_t n = s.size();
  if (n < 19) return false;
  const char *p = s.data();
  int64_t days;
  if (cache.valid && memcmp(cache.date, p, 10) == 0) {
    days = cache.days;
  } else {
    int y, m, d;
    if (!digitsAt(p, 0, 4, y) || p[4] != '-' || !digitsAt(p, 5, 2, m) || p[7] != '-' || !digitsAt(p, 8, 2, d)) return false;
    if (m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m)) return false;
    days = daysFromCivil(y, m, d);
    memcpy(cache.date, p, 10);
    cache.valid = true;
    cache.days = days;
  }
  int hh, mm, ss;
  if (!(p[10] == 'T' || p[10] == ' ') || !digitsAt(p, 11, 2, hh) || p[13] != ':' || !digitsAt(p, 14, 2, mm) ||
      p[16] != ':' || !digitsAt(p, 17, 2, ss) || hh > 23 || mm > 59 || ss > 59)
    return false;
  size_t i = 19;
  int64_t micros = 0;
  if (i < n && p[i] == '.') {
    i++;
    size_t start = i;
    while (i < n && (unsigned)((unsigned char)p[i] - '0') < 10 && i - start < 10) {
      if (i - start < 6) micros = micros * 10 + (p[i] - '0');
      i++;
    }
    size_t digits = i - start;
    if (digits < 1 || digits > 9) return false;
    for (size_t k = digits; k < 6; k++) micros *= 10;
  }
  int64_t offset = 0;
  if (i < n) {
    if (p[i] == 'Z') {
      i++;
    } else if (p[i] == '+' || p[i] == '-') {
      int oh, om;
      if (n - i < 6 || !digitsAt(p, (int)i + 1, 2, oh) || p[i + 3] != ':' || !digitsAt(p, (int)i + 4, 2, om) || oh > 23 ||
          om > 59)
        return false;
      offset = oh * 3600 + om * 60;
      if (p[i] == '-') offset = -offset;
      i += 6;
    } else {
      return false;
    }
  }
  if (i != n) return false;
  out = (days * 86400 + hh * 3600 + mm * 60 + ss - offset) * 1000000 + micros;
  return true;
}

static bool parseEpochMilliseconds(std::string_view s, int64_t &out) {
  size_t i = 0;
  bool negative = false;
  if (!s.empty() && s[0] == '-') { negative = true; i = 1; }
  if (i >= s.size()) return false;
  int64_t v = 0;
  for (; i < s.size(); i++) {
    unsigned d = (unsigned char)s[i] - '0';
    if (d > 9) return false;
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, (int64_t)d, &v)) return false;
  }
  if (negative) v = -v;
  return !__builtin_mul_overflow(v, 1000, &out);
}

static const int64_t maximumMicros = 1000000000000000000LL;

// Price.parseMicros: exact decimal → micro-units, half to even, ≤ 10^12 units.
static bool parsePrice(std::string_view s, int64_t &out) {
  const size_t n = s.size();
  if (n == 0) return false;
  const char *p = s.data();
  size_t i = 0;
  bool negative = p[0] == '-';
  if (negative) i = 1;
  size_t is = i;
  while (i < n && (unsigned)((unsigned char)p[i] - '0') < 10) i++;
  size_t ie = i;
  if (ie == is) return false;
  size_t fs = i, fe = i;
  if (i < n && p[i] == '.') {
    i++;
    fs = i;
    while (i < n && (unsigned)((unsigned char)p[i] - '0') < 10) i++;
    fe = i;
    if (fe == fs) return false;
  }
  long exponent = 0;
  if (i < n && (p[i] == 'e' || p[i] == 'E')) {
    i++;
    bool en = false;
    if (i < n && (p[i] == '+' || p[i] == '-')) { en = p[i] == '-'; i++; }
    size_t es = i;
    while (i < n && (unsigned)((unsigned char)p[i] - '0') < 10) {
      if (exponent < 1000000000) exponent = exponent * 10 + (p[i] - '0');
      i++;
    }
    if (i == es) return false;
    if (en) exponent = -exponent;
  }
  if (i != n) return false;
  const long ic = (long)(ie - is), total = ic + (long)(fe - fs);
  uint64_t acc = 0;
  int rounding = 0;
  bool sticky = false;
  long lastPower = 0;
  for (long k = 0; k < total; k++) {
    int digit = k < ic ? p[is + k] - '0' : p[fs + k - ic] - '0';
    long power = ic - 1 - k + exponent + 6;
    if (power >= 0) {
      if (acc == 0 && digit == 0) continue;
      if (power >= 19) return false;
      acc = acc * 10 + (uint64_t)digit;
      lastPower = power;
    } else if (power == -1) {
      rounding = digit;
    } else if (digit != 0) {
      sticky = true;
    }
  }
  if (acc > 0 && lastPower > 0)
    for (long k = 0; k < lastPower; k++)
      if (__builtin_mul_overflow(acc, (uint64_t)10, &acc)) return false;
  if (rounding > 5 || (rounding == 5 && (sticky || (acc & 1)))) acc++;
  if (acc > (uint64_t)maximumMicros) return false;
  out = negative ? -(int64_t)acc : (int64_t)acc;
  return true;
}

// The JSON number grammar (RFC 8259: no leading zero) on a raw token; sets `integer`.
static bool jsonNumber(std::string_view s, bool &integer) {
  size_t i = 0, n = s.size();
  if (i < n && s[i] == '-') i++;
  if (i >= n) return false;
  if (s[i] == '0') {
    i++;
  } else if (s[i] >= '1' && s[i] <= '9') {
    while (i < n && s[i] >= '0' && s[i] <= '9') i++;
  } else {
    return false;
  }
  integer = true;
  if (i < n && s[i] == '.') {
    integer = false;
    size_t st = ++i;
    while (i < n && s[i] >= '0' && s[i] <= '9') i++;
    if (i == st) return false;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    integer = false;
    i++;
    if (i < n && (s[i] == '+' || s[i] == '-')) i++;
    size_t st = i;
    while (i < n && s[i] >= '0' && s[i] <= '9') i++;
    if (i == st) return false;
  }
  return i == n;
}

static std::string_view trimRight(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Walks a value the log format does not know (docs/input-formats.md#json-lines: unknown keys),
// validating every scalar (the scanner's skipValue).
static bool validate(ondemand::value v, int depth) {
  if (depth > 1024) return false;
  ondemand::json_type t;
  if (v.type().get(t)) return false;
  switch (t) {
  case ondemand::json_type::object: {
    ondemand::object o;
    if (v.get_object().get(o)) return false;
    for (auto fr : o) {
      ondemand::field f;
      if (std::move(fr).get(f)) return false;
      std::string_view k;
      if (f.unescaped_key().get(k)) return false;
      if (!validate(f.value(), depth + 1)) return false;
    }
    return true;
  }
  case ondemand::json_type::array: {
    ondemand::array a;
    if (v.get_array().get(a)) return false;
    for (auto er : a) {
      ondemand::value e;
      if (std::move(er).get(e)) return false;
      if (!validate(e, depth + 1)) return false;
    }
    return true;
  }
  case ondemand::json_type::string: {
    std::string_view s;
    return !v.get_string().get(s);
  }
  case ondemand::json_type::number: {
    bool integer;
    return jsonNumber(trimRight(v.raw_json_token()), integer);
  }
  case ondemand::json_type::boolean: {
    bool b;
    return !v.get_bool().get(b);
  }
  case ondemand::json_type::null: {
    bool isNull;
    return !v.is_null().get(isNull) && isNull;
  }
  }
  return false;
}

static int eventTypeOf(std::string_view s) {
  if (s == "paywall_view") return 0;
  if (s == "trial_start") return 1;
  if (s == "purchase") return 2;
  if (s == "renewal") return 3;
  if (s == "refund") return 4;
  if (s == "cancel") return 5;
  if (s == "expire") return 6;
  return -1;
}

struct LineParser {
  ondemand::parser parser;
  DayCache dayCache;
  bool skipUnknown = false, slices = false, rawStrings = false, floorOnly = false;
  const char *end = nullptr;  // the end of the line
  FieldValue slots[S_COUNT];
  uint32_t present = 0;

  const FieldValue *value(int s) const {
    if (!(present & (1u << s))) return nullptr;
    return slots[s].kind == K_NULL ? nullptr : &slots[s];
  }
  const FieldValue *optionalValue(int s) const {
    const FieldValue *v = value(s);
    return v && (v->kind != K_STRING || !v->text.empty()) ? v : nullptr;
  }
  const FieldValue *idValue(int s) const {
    const FieldValue *v = optionalValue(s);
    return v ? v : optionalValue(s + CAMEL);
  }

  // `line` must be followed by SIMDJSON_PADDING readable bytes (`capacity`).
  Reason parse(const char *line, size_t length, size_t capacity, Record &r) {
    present = 0;
    end = line + length;
    ondemand::document doc;
    if (parser.iterate(line, length, capacity).get(doc)) return INVALID_JSON;
    ondemand::object obj;
    if (doc.get_object().get(obj)) return INVALID_JSON;
    if (floorOnly) {
      // simdjson alone: every member's key visited, every value skipped, nothing kept.
      size_t members = 0;
      for (auto fr : obj) {
        ondemand::field f;
        if (std::move(fr).get(f)) return INVALID_JSON;
        members += f.key().raw() != nullptr;
      }
      if (doc.current_location().error() != OUT_OF_BOUNDS) return INVALID_JSON;
      r.timestamp = (int64_t)members;
      return VALID;
    }
    for (auto fr : obj) {
      ondemand::field f;
      if (std::move(fr).get(f)) return INVALID_JSON;
      std::string_view key;
      if (rawStrings) {
        // The key's bytes in the line when it has no escape (no copy); else unescaped.
        const char *k = f.key().raw();
        const char *quote = static_cast<const char *>(memchr(k, '"', end - k));
        if (quote && !memchr(k, '\\', quote - k)) key = std::string_view(k, quote - k);
        else if (f.unescaped_key().get(key)) return INVALID_JSON;
      } else if (f.unescaped_key().get(key)) {
        return INVALID_JSON;
      }
      int slot = matchKey(key, slices);
      ondemand::value v = f.value();
      if (slot < 0) {
        if (!skipUnknown && !validate(v, 0)) return INVALID_JSON;
        continue;  // with skipUnknown, On-Demand skips it when the next key is read
      }
      ondemand::json_type t;
      if (v.type().get(t)) return INVALID_JSON;
      FieldValue fv;
      switch (t) {
      case ondemand::json_type::string:
        fv.kind = K_STRING;
        if (rawStrings) {
          // Without a backslash the value is its bytes in the line, left unconsumed (no copy).
          std::string_view token = trimRight(v.raw_json_token());
          if (token.size() >= 2 && !memchr(token.data(), '\\', token.size())) {
            fv.text = token.substr(1, token.size() - 2);
            break;
          }
        }
        if (v.get_string().get(fv.text)) return INVALID_JSON;
        break;
      case ondemand::json_type::number: {
        bool integer = false;
        fv.text = trimRight(v.raw_json_token());
        if (!jsonNumber(fv.text, integer)) return INVALID_JSON;
        fv.kind = integer ? K_INTEGER : K_NUMBER;
        break;
      }
      case ondemand::json_type::null: {
        bool isNull;
        if (v.is_null().get(isNull) || !isNull) return INVALID_JSON;
        fv.kind = K_NULL;
        break;
      }
      default:
        if (!validate(v, 0)) return INVALID_JSON;
        fv.kind = K_OTHER;
        break;
      }
      slots[slot] = fv;
      present |= 1u << slot;
    }
    // Nothing after the object (simdjson 3.0 has no document::at_end(): past the last token,
    // current_location() is OUT_OF_BOUNDS).
    if (doc.current_location().error() != OUT_OF_BOUNDS) return INVALID_JSON;
    return resolve(r);
  }

  Reason resolve(Record &r) {
    const FieldValue *ts = value(S_TS);
    const FieldValue *user = value(S_USER);
    if (!user) user = value(S_USER + CAMEL);
    const FieldValue *event = value(S_EVENT);
    if (!ts || !user || !event) return MISSING_FIELD;
    if (!(user->kind == K_INTEGER || (user->kind == K_STRING && !user->text.empty())) || event->kind != K_STRING)
      return INVALID_FIELD;
    int64_t price = 0;
    bool hasPrice = false;
    if (const FieldValue *pv = optionalValue(S_PRICE)) {
      if (pv->kind == K_OTHER || !parsePrice(pv->text, price)) return INVALID_FIELD;
      hasPrice = true;
    }
    const FieldValue *eventID = idValue(S_EVENT_ID), *productID = idValue(S_PRODUCT),
                     *transactionID = idValue(S_TRANSACTION), *originalID = idValue(S_ORIGINAL_TRANSACTION),
                     *offeringID = idValue(S_OFFERING), *testGroupID = idValue(S_TEST_GROUP),
                     *currency = optionalValue(S_CURRENCY), *environment = optionalValue(S_ENVIRONMENT);
    auto isText = [](const FieldValue *v) { return !v || v->kind == K_STRING || v->kind == K_INTEGER; };
    if (!isText(eventID) || !isText(productID) || !isText(transactionID) || !isText(originalID) || !isText(offeringID) ||
        !isText(testGroupID) || !isText(currency) || !isText(environment))
      return INVALID_FIELD;
    int64_t timestamp;
    if (ts->kind == K_STRING) {
      if (!parseTimestamp(ts->text, dayCache, timestamp)) return BAD_TIMESTAMP;
    } else if (ts->kind == K_INTEGER) {
      if (!parseEpochMilliseconds(ts->text, timestamp)) return BAD_TIMESTAMP;
    } else {
      return BAD_TIMESTAMP;
    }
    int type = eventTypeOf(event->text);
    if (type >= 1 && type <= 4 && (!productID || !transactionID)) return MISSING_FIELD;
    if ((type == 2 || type == 3) && !hasPrice) return MISSING_FIELD;
    if (hasPrice && !currency) return MISSING_FIELD;
    if (hasPrice && price < 0) return NEGATIVE_PRICE;
    auto text = [](const FieldValue *v) { return v ? v->text : std::string_view(); };
    r.eventID = text(eventID);
    r.userID = user->text;
    r.eventName = event->text;
    r.eventType = type;
    r.timestamp = timestamp;
    r.productID = text(productID);
    r.transactionID = text(transactionID);
    r.originalTransactionID = text(originalID);
    r.price = price;
    r.hasPrice = hasPrice;
    r.currency = text(currency);
    r.offeringID = text(offeringID);
    r.testGroupID = text(testGroupID);
    std::string_view env = text(environment);
    r.isSandbox = env.size() == 7 && (env[0] | 0x20) == 's' && (env[1] | 0x20) == 'a' && (env[2] | 0x20) == 'n' &&
                  (env[3] | 0x20) == 'd' && (env[4] | 0x20) == 'b' && (env[5] | 0x20) == 'o' && (env[6] | 0x20) == 'x';
    if (slices) {
      auto slice = [&](int s) {
        const FieldValue *v = optionalValue(s);
        return v && (v->kind == K_STRING || v->kind == K_INTEGER) ? v->text : std::string_view();
      };
      r.country = slice(S_COUNTRY);
      r.platform = slice(S_PLATFORM);
    }
    return VALID;
  }
};

int main(int argc, char **argv) {
  int passes = 10;
  bool each = false;
  LineParser lp;
  for (int a = 1; a < argc; a++) {
    if (!strcmp(argv[a], "--skip")) lp.skipUnknown = true;
    else if (!strcmp(argv[a], "--slices")) lp.slices = true;
    else if (!strcmp(argv[a], "--raw")) lp.rawStrings = true;
    else if (!strcmp(argv[a], "--floor")) lp.floorOnly = true;
    else if (!strcmp(argv[a], "--each")) each = true;
    else passes = atoi(argv[a]);
  }
  std::string all;
  char chunk[1 << 16];
  size_t got;
  while ((got = fread(chunk, 1, sizeof chunk, stdin)) > 0) all.append(chunk, got);
  const size_t size = all.size();
  all.append(SIMDJSON_PADDING, ' ');  // the last line's padding
  std::vector<std::pair<size_t, size_t>> lines;
  size_t start = 0;
  for (size_t i = 0; i < size; i++)
    if (all[i] == '\n') { lines.emplace_back(start, i - start); start = i + 1; }
  if (lp.parser.allocate(1 << 16)) return 1;  // longer lines grow it

  if (each) {  // one line's reason per line, for checking the order of docs/input-formats.md#malformed-lines
    Record record;
    for (auto &[offset, length] : lines)
      printf("%s\n", reasonNames[lp.parse(all.data() + offset, length, all.size() - offset, record)]);
    return 0;
  }
  long counts[REASONS] = {0};
  int64_t checksum = 0;
  Record record;
  const char *base = all.data();
  auto t0 = std::chrono::steady_clock::now();
  for (int pass = 0; pass < passes; pass++) {
    for (auto &[offset, length] : lines) {
      Reason reason = lp.parse(base + offset, length, all.size() - offset, record);
      if (reason == VALID) checksum = (int64_t)((uint64_t)checksum + (uint64_t)record.timestamp);
      if (pass == 0) counts[reason]++;
    }
  }
  auto t1 = std::chrono::steady_clock::now();
  double ns = std::chrono::duration<double, std::nano>(t1 - t0).count() / ((double)passes * (double)lines.size());
  #define XSTR(x) STR(x)
#define STR(x) #x
  printf("simdjson %s (%s%s): %zu lines, %d passes, %.1f ns per line (checksum %lld)\n", XSTR(SIMDJSON_VERSION),
         XSTR(SIMDJSON_BUILTIN_IMPLEMENTATION), lp.floorOnly ? ", floor: keys visited, values skipped, no record (checksum: members)" : lp.skipUnknown ? (lp.rawStrings ? ", unknown values skipped, raw strings" : ", unknown values skipped") : (lp.rawStrings ? ", raw strings" : ""),
         lines.size(), passes, ns, (long long)checksum);
  for (int k = 0; k < REASONS; k++) printf("  %s %ld\n", reasonNames[k], counts[k]);
  return 0;
}
