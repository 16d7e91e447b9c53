// The Snowball Turkish stemmer (stemmer.h), written from the published algorithm (snowballstem.org,
// "Turkish stemming algorithm", after Eryiğit and Adalı's suffix automata): nominal verb suffixes
// and then noun suffix chains are removed from the end, each suffix checked for vowel harmony
// and its buffer letter (y, n, s or a U vowel).
//
// The word is worked on as the algorithm is written (stemmer_cursor.h).
#include "fts/stemmer.h"
#include "fts/stemmer_cursor.h"

namespace graphdb::fts {
namespace {

constexpr std::u32string_view kVowel = U"aeıioöuü";
constexpr std::u32string_view kU = U"ıiuü";

class TurkishWord : public BackwardCursor {
 public:
  using BackwardCursor::BackwardCursor;

  bool NominalVerbSuffixes() {
    ket_ = c_;
    continue_nouns_ = true;
    bool ok =
        Any({[&] {
               return Any({MarkFn(&T::YmUs), MarkFn(&T::YDU), MarkFn(&T::YsA), MarkFn(&T::Yken)});
             },
             [&] {
               return CAsInA() &&
                      Any({MarkFn(&T::SUnUz), MarkFn(&T::LAr), MarkFn(&T::YUm), MarkFn(&T::SUn),
                           MarkFn(&T::YUz), True()}) &&
                      YmUs();
             },
             [&] {
               if (!LAr()) return false;
               Close();
               Try([&] {
                 ket_ = c_;
                 return Any({MarkFn(&T::DUr), MarkFn(&T::YDU), MarkFn(&T::YsA), MarkFn(&T::YmUs)});
               });
               continue_nouns_ = false;
               return true;
             },
             [&] { return NUz() && Any({MarkFn(&T::YDU), MarkFn(&T::YsA)}); },
             [&] {
               if (!Any({MarkFn(&T::SUnUz), MarkFn(&T::YUz), MarkFn(&T::SUn), MarkFn(&T::YUm)})) {
                 return false;
               }
               Close();
               Try([&] {
                 ket_ = c_;
                 return YmUs();
               });
               return true;
             },
             [&] {
               if (!DUr()) return false;
               Close();
               Try([&] {
                 ket_ = c_;
                 return Any({MarkFn(&T::SUnUz), MarkFn(&T::LAr), MarkFn(&T::YUm), MarkFn(&T::SUn),
                             MarkFn(&T::YUz), True()}) &&
                        YmUs();
               });
               return true;
             }});
    if (!ok) return false;
    Close();
    return true;
  }

  bool ContinueNouns() const { return continue_nouns_; }
  void CursorToEnd() { ToEnd(); }

  bool NounSuffixes() {
    // [X] delete: marks the slice of X and deletes it.
    auto cut = [&](std::function<bool()> mark) {
      ket_ = c_;
      if (!mark()) return false;
      Close();
      return true;
    };
    auto lar_then_chain = [&] { return cut(MarkFn(&T::LAr)) && Chain(); };
    auto poss_or_su = [&] {
      return cut([&] { return Any({MarkFn(&T::Possessives), MarkFn(&T::SU)}); }) &&
             Try(lar_then_chain);
    };
    auto chain = [&] { return Chain(); };
    return Any({
        [&] { return cut(MarkFn(&T::LAr)) && Try(chain); },
        [&] {
          return cut(MarkFn(&T::NcA)) && Try([&] {
                   return Any({[&] { return cut(MarkFn(&T::LArI)); }, poss_or_su, lar_then_chain});
                 });
        },
        [&] {
          ket_ = c_;
          if (!Any({MarkFn(&T::NdA), MarkFn(&T::NA)})) return false;
          return Any({[&] { return LArI() && Close(); },
                      [&] { return SU() && Close() && Try(lar_then_chain); }, chain});
        },
        [&] {
          ket_ = c_;
          if (!Any({MarkFn(&T::NdAn), MarkFn(&T::NU)})) return false;
          return Any({[&] { return SU() && Close() && Try(lar_then_chain); }, MarkFn(&T::LArI)});
        },
        [&] {
          return cut(MarkFn(&T::DAn)) && Try([&] {
                   ket_ = c_;
                   return Any({[&] { return Possessives() && Close() && Try(lar_then_chain); },
                               [&] { return LAr() && Close() && Try(chain); }, chain});
                 });
        },
        [&] {
          return cut([&] { return Any({MarkFn(&T::NUn), MarkFn(&T::YlA)}); }) &&
                 Try([&] { return Any({lar_then_chain, poss_or_su, chain}); });
        },
        [&] { return cut(MarkFn(&T::LArI)); },
        chain,
        [&] {
          return cut([&] { return Any({MarkFn(&T::DA), MarkFn(&T::YU), MarkFn(&T::YA)}); }) &&
                 Try([&] {
                   ket_ = c_;
                   bool ok = Any({[&] {
                                    if (!Possessives()) return false;
                                    Close();
                                    Try([&] {
                                      ket_ = c_;
                                      return LAr();
                                    });
                                    return true;
                                  },
                                  MarkFn(&T::LAr)});
                   if (!ok) return false;
                   Close();
                   ket_ = c_;
                   return Chain();
                 });
        },
        poss_or_su,
    });
  }

  void Postlude() {
    c_ = s_.size();
    if (s_ == U"ad" || s_ == U"soyad") return;
    if (!s_.empty() && (s_.back() == U'd' || s_.back() == U'g')) {
      size_t i = s_.size();
      while (i > 0 && !IsIn(s_[i - 1], kVowel)) --i;
      if (i > 0) {
        char32_t v = s_[i - 1];
        if (v == U'a' || v == U'ı') {
          s_.push_back(U'ı');
        } else if (v == U'e' || v == U'i') {
          s_.push_back(U'i');
        } else if (v == U'o' || v == U'u') {
          s_.push_back(U'u');
        } else {
          s_.push_back(U'ü');
        }
      }
    }
    if (!s_.empty()) {
      char32_t& last = s_.back();
      if (last == U'b') {
        last = U'p';
      } else if (last == U'c') {
        last = U'ç';
      } else if (last == U'd') {
        last = U't';
      } else if (last == U'ğ') {
        last = U'k';
      }
    }
  }

 private:
  using T = TurkishWord;

  Step MarkFn(bool (T::*f)()) {
    return [this, f] { return (this->*f)(); };
  }
  static Step True() {
    return [] { return true; };
  }
  // `] delete`: removes [cursor, ket).
  bool Close() { return Set(U""); }

  // Chains ending in -ki.
  bool Chain() {
    ket_ = c_;
    if (!Lit(U"ki")) return false;
    auto lar_then_chain = [&] {
      ket_ = c_;
      return LAr() && Close() && Chain();
    };
    return Any({
        [&] {
          if (!DA()) return false;
          Close();
          return Try([&] {
            ket_ = c_;
            return Any({[&] { return LAr() && Close() && Try([&] { return Chain(); }); },
                        [&] { return Possessives() && Close() && Try(lar_then_chain); }});
          });
        },
        [&] {
          if (!NUn()) return false;
          Close();
          return Try([&] {
            ket_ = c_;
            return Any({[&] { return LArI() && Close(); },
                        [&] {
                          ket_ = c_;
                          return Any({MarkFn(&T::Possessives), MarkFn(&T::SU)}) && Close() &&
                                 Try(lar_then_chain);
                        },
                        [&] { return Chain(); }});
          });
        },
        [&] {
          if (!NdA()) return false;
          return Any({[&] { return LArI() && Close(); },
                      [&] { return SU() && Close() && Try(lar_then_chain); },
                      [&] { return Chain(); }});
        },
    });
  }

  bool VowelHarmony() {
    size_t save = c_;
    bool ok = false;
    if (GoTo(kVowel)) {
      char32_t v = s_[c_ - 1];
      --c_;
      switch (v) {
        case U'a': ok = GoTo(U"aıou"); break;
        case U'e': ok = GoTo(U"eiöü"); break;
        case U'ı': ok = GoTo(U"aı"); break;
        case U'i': ok = GoTo(U"ei"); break;
        case U'o':
        case U'u': ok = GoTo(U"ou"); break;
        default: ok = GoTo(U"öü"); break;
      }
    }
    c_ = save;
    return ok;
  }
  // A buffer letter (y, n or s) before the suffix is taken along when a vowel precedes it;
  // without the letter, the letter before the suffix must follow a vowel.
  bool Buffer(char32_t letter) {
    if (c_ >= 2 && s_[c_ - 1] == letter) {
      if (IsIn(s_[c_ - 2], kVowel)) {
        --c_;
        return true;
      }
      return false;
    }
    if (c_ >= 1 && s_[c_ - 1] == letter) return false;
    return c_ >= 2 && IsIn(s_[c_ - 2], kVowel);
  }
  bool BufferU() {
    if (c_ >= 1 && IsIn(s_[c_ - 1], kU)) {
      if (c_ >= 2 && !IsIn(s_[c_ - 2], kVowel)) {
        --c_;
        return true;
      }
      return false;
    }
    return c_ >= 2 && !IsIn(s_[c_ - 2], kVowel);
  }

  bool Possessives() {
    return Among({U"mız", U"miz", U"muz", U"müz", U"nız", U"niz", U"nuz", U"nüz", U"m", U"n"}) &&
           BufferU();
  }
  bool SU() { return VowelHarmony() && In(kU) && Buffer(U's'); }
  bool LArI() { return Among({U"leri", U"ları"}); }
  bool YU() { return VowelHarmony() && In(kU) && Buffer(U'y'); }
  bool NU() { return VowelHarmony() && Among({U"nı", U"ni", U"nu", U"nü"}); }
  bool NUn() { return VowelHarmony() && Among({U"ın", U"in", U"un", U"ün"}) && Buffer(U'n'); }
  bool YA() { return VowelHarmony() && Among({U"a", U"e"}) && Buffer(U'y'); }
  bool NA() { return VowelHarmony() && Among({U"na", U"ne"}); }
  bool DA() { return VowelHarmony() && Among({U"da", U"de", U"ta", U"te"}); }
  bool NdA() { return VowelHarmony() && Among({U"nda", U"nde"}); }
  bool DAn() { return VowelHarmony() && Among({U"dan", U"den", U"tan", U"ten"}); }
  bool NdAn() { return VowelHarmony() && Among({U"ndan", U"nden"}); }
  bool YlA() { return VowelHarmony() && Among({U"la", U"le"}) && Buffer(U'y'); }
  bool NcA() { return VowelHarmony() && Among({U"ca", U"ce"}) && Buffer(U'n'); }
  bool YUm() { return VowelHarmony() && Among({U"ım", U"im", U"um", U"üm"}) && Buffer(U'y'); }
  bool SUn() { return VowelHarmony() && Among({U"sın", U"sin", U"sun", U"sün"}); }
  bool YUz() { return VowelHarmony() && Among({U"ız", U"iz", U"uz", U"üz"}) && Buffer(U'y'); }
  bool SUnUz() { return Among({U"sınız", U"siniz", U"sunuz", U"sünüz"}); }
  bool LAr() { return VowelHarmony() && Among({U"ler", U"lar"}); }
  bool NUz() { return VowelHarmony() && Among({U"nız", U"niz", U"nuz", U"nüz"}); }
  bool DUr() {
    return VowelHarmony() &&
           Among({U"tır", U"tir", U"tur", U"tür", U"dır", U"dir", U"dur", U"dür"});
  }
  bool CAsInA() { return Among({U"casına", U"cesine"}); }
  bool YDU() {
    return VowelHarmony() &&
           Among({U"tım", U"tim", U"tum", U"tüm", U"dım", U"dim", U"dum", U"düm",
                  U"tın", U"tin", U"tun", U"tün", U"dın", U"din", U"dun", U"dün",
                  U"tık", U"tik", U"tuk", U"tük", U"dık", U"dik", U"duk", U"dük",
                  U"tı",  U"ti",  U"tu",  U"tü",  U"dı",  U"di",  U"du",  U"dü"}) &&
           Buffer(U'y');
  }
  bool YsA() {
    return Among({U"sam", U"san", U"sak", U"sem", U"sen", U"sek", U"sa", U"se"}) && Buffer(U'y');
  }
  bool YmUs() { return VowelHarmony() && Among({U"mış", U"miş", U"muş", U"müş"}) && Buffer(U'y'); }
  bool Yken() { return Lit(U"ken") && Buffer(U'y'); }

  bool continue_nouns_ = false;
};

}  // namespace

void StemTurkish(std::string* word) {
  U32 w = Decode(*word);
  int vowels = 0;
  for (char32_t ch : w) vowels += IsIn(ch, kVowel) ? 1 : 0;
  if (vowels < 2) return;
  TurkishWord t(std::move(w));
  t.NominalVerbSuffixes();
  // After a plural -lAr of a nominal verb, the noun suffixes and the postlude are skipped.
  if (t.ContinueNouns()) {
    t.CursorToEnd();
    t.NounSuffixes();
    t.Postlude();
  }
  *word = Encode(t.Text());
}

}  // namespace graphdb::fts
