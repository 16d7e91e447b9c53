// The Snowball Tamil stemmer (stemmer.h), written from the published algorithm (snowballstem.org,
// "Tamil stemming algorithm", Damodharan Rajalingam's affix stripper): question and pronoun
// prefixes, question, "um", common-word, case (vetrumai urupu), plural, command and tense
// suffixes, each followed by fixes of the word's new ending.
//
// The backward steps are worked as the algorithm is written (stemmer_cursor.h); alternatives
// listed with "or" are tried in order, lists of suffixes ("among") by length.
#include "fts/stemmer.h"
#include "fts/stemmer_cursor.h"

namespace graphdb::fts {
namespace {

constexpr std::u32string_view kHard = U"கசடதபற";  // ka ca tta ta pa rra
constexpr std::u32string_view kVowelSigns = U"\u0BBE\u0BBF\u0BC0\u0BC6\u0BC7\u0BC1\u0BC2\u0BC8";
constexpr std::u32string_view kVowels = U"அஆஇஈஉஊஎஏஐஒஓஔ";
constexpr char32_t kPulli = 0x0BCD;

class TamilWord : public BackwardCursor {
 public:
  using BackwardCursor::BackwardCursor;

  void Stem() {
    found_case_ = false;
    FixEnding();
    if (!LongEnough()) return;
    RemovePrefix(U"எ");
    RemovePrefix(U"அஇஉ");
    if (LongEnough()) {
      Back([&] {
        ket_ = c_;
        if (!Among({U"ோ", U"ே", U"ா"})) return false;
        return Set(U"்");
      });
      FixEndings();
    }
    if (LongEnough() && Back([&] { return Mark(U"ும்") && Set(U"்"); })) FixEnding();
    if (LongEnough() && Back([&] { return CommonWordEndings(); })) FixEndings();
    found_case_ = false;
    if (LongEnough() && Back([&] { return CaseEndings(); })) FixEndings();
    Back([&] {
      return Any({[&] { return Mark(U"ுங்கள்") && !AtAny(kHard) && Set(U"்"); },
                  [&] { return Mark(U"ற்கள்") && Set(U"ல்"); },
                  [&] { return Mark(U"ட்கள்") && Set(U"ள்"); },
                  [&] { return Mark(U"கள்") && Set(U""); }});
    });
    if (LongEnough()) {
      Back([&] {
        ket_ = c_;
        return Among({U"பி", U"வி"}) && Set(U"");
      });
    }
    bool found = true;
    while (found) {
      found = false;
      if (!LongEnough()) break;
      Back([&] {
        TenseSuffix(&found);
        return true;
      });
      FixEndings();
    }
  }

 private:
  bool LongEnough() const { return s_.size() > 4; }

  // Runs `step` backwards from the end of the word.
  bool Back(const Step& step) {
    ToEnd();
    return step();
  }
  // `[ 'text'`: the slice starts at the cursor and the literal is consumed.
  bool Mark(std::u32string_view t) {
    OpenSlice();
    return Lit(t);
  }
  // Forward: a question (எ) or pronoun (அ இ உ) prefix before a consonant and pulli.
  void RemovePrefix(std::u32string_view first) {
    if (s_.size() < 3 || !IsIn(s_[0], first) || !IsIn(s_[1], U"கசதவநபமயஙஞ") || s_[2] != kPulli) {
      return;
    }
    s_.erase(0, 3);
    static constexpr std::pair<std::u32string_view, std::u32string_view> kVa[] = {
        {U"வோ", U"ஓ"}, {U"வொ", U"ஒ"}, {U"வு", U"உ"}, {U"வூ", U"ஊ"}};
    for (const auto& [from, to] : kVa) {
      if (s_.starts_with(from)) {
        s_.replace(0, from.size(), to);
        break;
      }
    }
  }

  void FixEndings() {
    while (FixEnding()) {
    }
  }

  bool FixEnding() {
    if (s_.size() <= 3) return false;
    return Back([&] {
      return Any({
          [&] {
            ket_ = c_;
            return Among({U"ந்", U"ந்த", U"ந்த்"}) && Set(U"");
          },
          [&] { return Mark(U"ய்") && Test([&] { return Among({U"ை", U"ி", U"ீ"}); }) && Set(U""); },
          [&] {
            ket_ = c_;
            return Any({[&] { return Lit(U"ட்ப்"); }, [&] { return Lit(U"ட்க்"); }}) && Set(U"ள்");
          },
          [&] { return Mark(U"ன்ற்") && Set(U"ல்"); },
          [&] { return Mark(U"ற்க்") && Set(U"ல்"); },
          [&] { return Mark(U"ட்ட்") && Set(U"டு"); },
          [&] { return found_case_ && Mark(U"த்த்") && !AtAny(U"ை") && Set(U"ம்"); },
          [&] {
            ket_ = c_;
            return Any({[&] { return Lit(U"ுக்"); }, [&] { return Lit(U"ுக்க்"); }}) && Set(U"்");
          },
          [&] { return Mark(U"்") && In(kHard) && Lit(U"்") && In(kHard) && Set(U""); },
          [&] { return Mark(U"்") && In(kHard) && Set(U""); },
          [&] { return Mark(U"்") && In(U"யரலவழளஙஞணநமன") && Lit(U"்") && Set(U"்"); },
          [&] {
            ket_ = c_;
            return Among({U"வ", U"ய", U"வ்"}) && Set(U"");
          },
          [&] { return Mark(U"னு") && !AtAny(kVowelSigns) && Set(U""); },
          [&] { return Mark(U"ங்") && !AtAny(U"ை") && Set(U"ம்"); },
          [&] { return Mark(U"ங்") && Set(U""); },
          [&] {
            return Mark(U"்") &&
                   Test([&] { return AtAny(kVowelSigns) || (c_ > 0 && s_[c_ - 1] == kPulli); }) &&
                   Set(U"");
          },
      });
    });
  }

  bool CommonWordEndings() {
    return Any({
        [&] {
          return Test([&] {
            ket_ = c_;
            bool ok = Any({
                [&] { return Lit(U"ுடன்"); },
                [&] { return Lit(U"ில்லை"); },
                [&] { return Lit(U"ிடம்"); },
                [&] { return Lit(U"ின்றி"); },
                [&] { return Lit(U"ாகி"); },
                [&] { return Lit(U"ாகிய"); },
                [&] { return Lit(U"ென்று"); },
                [&] { return Lit(U"ுள்ள"); },
                [&] { return Lit(U"ுடைய"); },
                [&] { return Lit(U"ுடை"); },
                [&] { return Lit(U"ெனும்"); },
                [&] { return Lit(U"ல்ல") && !AtAny(kVowelSigns); },
                [&] { return Lit(U"ென"); },
                [&] { return Lit(U"ாகி"); },
            });
            return ok && Set(U"்");
          });
        },
        [&] {
          return Test([&] {
            ket_ = c_;
            return Among({U"படு", U"பட்ட", U"பட்டு", U"பட்டது", U"பட்டண", U"குரிய", U"பற்றி", U"விடு",
                          U"விட்டு", U"படிதான", U"படி", U"தான", U"ெல்லாம்"}) &&
                   Set(U"");
          });
        },
    });
  }

  bool CaseEndings() {
    bool ok = Any({
        [&] { return Test([&] { return Mark(U"னை") && Set(U""); }); },
        [&] {
          return Test([&] {
            ket_ = c_;
            bool m =
                Any({[&] { return Lit(U"ினை"); }, [&] { return Lit(U"ை") && !AtAny(kHard); },
                     [&] { return Lit(U"ை") && Test([&] { return In(kHard) && Lit(U"்"); }); }});
            return m && Set(U"்");
          });
        },
        [&] {
          return Test([&] {
            ket_ = c_;
            bool m = Any({
                [&] { return Lit(U"ொடு"); },
                [&] { return Lit(U"ோடு"); },
                [&] { return Lit(U"ில்"); },
                [&] { return Lit(U"ிற்"); },
                [&] { return Lit(U"ின்") && !AtAny(U"ம"); },
                [&] { return Lit(U"ின்று"); },
                [&] { return Lit(U"ிருந்து"); },
                [&] { return Lit(U"விட"); },
                [&] { return s_.size() >= 7 && Lit(U"ிடம்"); },
                [&] { return Lit(U"ால்"); },
                [&] { return Lit(U"ுடை"); },
                [&] { return Lit(U"ாமல்"); },
                [&] { return Lit(U"ல்") && !AtAny(kVowelSigns); },
                [&] { return Lit(U"ுள்"); },
            });
            return m && Set(U"்");
          });
        },
        [&] {
          return Test([&] {
            ket_ = c_;
            bool m = Any({
                [&] { return Lit(U"கண்"); },
                [&] { return Lit(U"முன்"); },
                [&] { return Lit(U"மேல்"); },
                [&] { return Lit(U"மேற்"); },
                [&] { return Lit(U"கீழ்"); },
                [&] { return Lit(U"பின்"); },
                [&] { return Lit(U"து") && !AtAny(kVowelSigns); },
            });
            return m && Set(U"");
          });
        },
        [&] { return Test([&] { return Mark(U"ீ") && Set(U"ி"); }); },
    });
    if (!ok) return false;
    found_case_ = true;
    c_ = s_.size();
    if (Mark(U"ின்")) Set(U"்");
    return true;
  }

  void TenseSuffix(bool* found) {
    bool hit = Any({
        [&] {
          return Test([&] {
            ket_ = c_;
            return Among({U"கொண்டிர்", U"படு"}) && Set(U"");
          });
        },
        [&] {
          return Test([&] {
            ket_ = c_;
            bool m = Any({
                [&] { return Lit(U"மார்"); },
                [&] { return Lit(U"மின்"); },
                [&] { return Lit(U"னன்"); },
                [&] { return Lit(U"னான்"); },
                [&] { return Lit(U"னாள்"); },
                [&] { return Lit(U"னார்"); },
                [&] { return Lit(U"வன்") && !AtAny(kVowels); },
                [&] { return Lit(U"னள்"); },
                [&] { return Lit(U"வள்"); },
                [&] { return Lit(U"னர்"); },
                [&] { return Lit(U"வர்"); },
                [&] { return Lit(U"ன"); },
                [&] { return Lit(U"ப"); },
                [&] { return Lit(U"க"); },
                [&] { return Lit(U"த"); },
                [&] { return Lit(U"ய"); },
                [&] { return Lit(U"பன்"); },
                [&] { return Lit(U"பள்"); },
                [&] { return Lit(U"பர்"); },
                [&] { return Lit(U"து") && !AtAny(kVowelSigns); },
                [&] { return Lit(U"ிற்று"); },
                [&] { return Lit(U"பம்"); },
                [&] { return Lit(U"னம்"); },
                [&] { return Lit(U"தும்"); },
                [&] { return Lit(U"றும்"); },
                [&] { return Lit(U"கும்"); },
                [&] { return Lit(U"னென்"); },
                [&] { return Lit(U"னை"); },
                [&] { return Lit(U"வை"); },
            });
            return m && Set(U"");
          });
        },
        [&] {
          return Test([&] {
            ket_ = c_;
            bool m = Any({
                [&] { return Lit(U"ான்") && !AtAny(U"ச"); },
                [&] { return Lit(U"ாள்"); },
                [&] { return Lit(U"ார்"); },
                [&] { return Lit(U"ேன்"); },
                [&] { return Lit(U"ா"); },
                [&] { return Lit(U"ாம்"); },
                [&] { return Lit(U"ெம்"); },
                [&] { return Lit(U"ேம்"); },
                [&] { return Lit(U"ோம்"); },
                [&] { return Lit(U"கும்"); },
                [&] { return Lit(U"தும்"); },
                [&] { return Lit(U"டும்"); },
                [&] { return Lit(U"றும்"); },
                [&] { return Lit(U"ாய்"); },
                [&] { return Lit(U"னென்"); },
                [&] { return Lit(U"னிர்"); },
                [&] { return Lit(U"ீர்"); },
                [&] { return Lit(U"ீயர்"); },
            });
            return m && Set(U"்");
          });
        },
        [&] {
          return Test([&] {
            ket_ = c_;
            bool m = Any({[&] { return Lit(U"கு"); }, [&] { return Lit(U"து"); }}) && c_ > 0 &&
                     s_[c_ - 1] == kPulli;
            return m && Set(U"");
          });
        },
    });
    if (hit) *found = true;
    c_ = s_.size();
    ket_ = c_;
    if (Among({U"ாநின்ற", U"ாநின்ற்", U"கின்ற", U"கின்ற்", U"கிற", U"கிற்"})) {
      Set(U"");
      *found = true;
    }
  }

  bool found_case_ = false;
};

}  // namespace

void StemTamil(std::string* word) {
  TamilWord t(Decode(*word));
  t.Stem();
  *word = Encode(t.Text());
}

}  // namespace graphdb::fts
