#ifndef TP_H
#define TP_H
const void *tp_tables(void);
#endif
