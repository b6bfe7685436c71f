package collation

import "strings"

// locales are the locale ids MongoDB accepts (its "Supported Languages and
// Locales" list), each with the BCP 47 tag golang.org/x/text/collate is
// given; an empty tag means the id with '_' read as '-'. x/text falls back
// to the closest table it has (ultimately the root order) for the rest.
var locales = map[string]string{
	"af": "", "sq": "", "am": "", "ar": "", "ar@collation=compat": "ar", "hy": "", "as": "", "az": "",
	"be": "", "bn": "", "bn@collation=traditional": "bn", "bs": "", "bs_Cyrl": "", "bg": "", "my": "",
	"ca": "", "chr": "", "zh": "", "zh@collation=big5han": "zh", "zh@collation=gb2312han": "zh",
	"zh@collation=pinyin": "zh", "zh@collation=stroke": "zh-u-co-stroke", "zh@collation=unihan": "zh",
	"zh@collation=zhuyin": "zh", "zh_Hant": "", "hr": "", "cs": "", "da": "", "nl": "", "dz": "",
	"en": "", "en_US": "", "en_US_POSIX": "en-US-u-va-posix", "eo": "", "et": "", "ee": "", "fo": "",
	"fil": "", "fi_FI": "fi", "fi_FI@collation=search": "fi", "fi_FI@collation=traditional": "fi-u-co-standard",
	"fr": "", "fr_CA": "", "gl": "", "ka": "", "de": "", "de@collation=phonebook": "de-u-co-phonebk",
	"de_AT": "de", "de_AT@collation=phonebook": "de-u-co-phonebk", "el": "", "gu": "", "ha": "", "haw": "",
	"he": "", "hi": "", "hi@collation=dictionary": "hi", "hu": "", "is": "", "ig": "", "smn": "", "id": "",
	"ga": "", "it": "", "ja": "", "kl": "", "kl@collation=search": "kl", "kn": "", "kn@collation=traditional": "kn",
	"kk": "", "km": "", "kok": "", "ko": "", "ko@collation=search": "ko", "ko@collation=searchjl": "ko",
	"ky": "", "lkt": "", "lo": "", "lv": "", "ln": "", "ln@collation=phonetic": "ln-u-co-phonetic", "lt": "",
	"dsb": "", "lb": "", "mk": "", "ms": "", "ml": "", "mt": "", "mr": "", "mn": "", "ne": "", "se": "",
	"nb": "", "nn": "", "or": "", "om": "", "ps": "", "fa": "", "fa_AF": "", "pl": "", "pt": "", "pa": "",
	"ro": "", "ru": "", "sr": "", "sr_Latn": "", "si": "", "si@collation=dictionary": "si", "sk": "",
	"sl": "", "es": "", "es@collation=search": "es", "es@collation=traditional": "es", "sw": "", "sv": "",
	"sv@collation=search": "sv", "ta": "", "te": "", "th": "", "bo": "", "to": "", "tr": "", "uk": "",
	"hsb": "", "ur": "", "ug": "", "vi": "", "vi@collation=traditional": "vi", "wae": "", "cy": "",
	"yi": "", "yi@collation=search": "yi", "yo": "", "zu": "",
}

// tagFor is the x/text language tag for a supported locale id.
func tagFor(loc string) string {
	if t := locales[loc]; t != "" {
		return t
	}
	return strings.ReplaceAll(loc, "_", "-")
}

// defaults is the spec of a locale before the document's fields apply:
// ICU's tailoring defaults for the few locales that change them.
func defaults(loc string) *Spec {
	s := &Spec{Locale: loc, CaseFirst: "off", Strength: 3, Alternate: "non-ignorable",
		MaxVariable: "punct", Version: Version}
	switch loc {
	case "fr_CA":
		s.Backwards = true
	case "da", "mt":
		s.CaseFirst = "upper"
	case "th":
		s.Alternate = "shifted"
	}
	return s
}
