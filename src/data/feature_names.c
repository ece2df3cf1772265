/* The built-in features' names, in column order (FEATURES.md): apart from their arithmetic so
 * that the CSV reader, which refuses a user column named like one, needs no more than this. */
#include "data/features.h"

const char *const feature_names[FOX_NFEAT] = {
    "ret_1",        "ret_2",        "ret_3",        "ret_5",        "ret_10",
    "ret_15",       "ret_30",       "ret_60",       "ret_120",      "ret_240",
    "ret_1440",     "vol_15",       "vol_60",       "vol_240",      "vol_1440",
    "ewm_vol",      "rsi_7",        "rsi_14",       "rsi_28",       "macd",
    "macd_signal",  "macd_hist",    "bb_pctb",      "bb_width",     "atr_14",
    "atr_60",       "sma_ratio_10", "sma_ratio_30", "sma_ratio_60", "sma_ratio_240",
    "ema_ratio_10", "ema_ratio_30", "ema_ratio_60", "ema_ratio_240", "stoch_k",
    "stoch_d",      "willr_14",     "cci_20",       "adx_14",       "mfi_14",
    "obv_z",        "volume_z",     "volume_ratio", "range",        "body",
    "upper_wick",   "lower_wick",   "tod_sin",      "tod_cos",      "dow_sin",
    "dow_cos",
};
